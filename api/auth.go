package api

import (
	"errors"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
)

// headerAuth is the legacy key header; Authorization: Bearer is the other.
const headerAuth = "auth"

// authenticate reads the developer key from the auth header or an
// Authorization Bearer header (never from the query string), verifies it
// and rate-limits it (see rateLimit). A key the verification cache does not
// know costs a database lookup, within the client's and the overall
// lookup budget.
func (s *Server) authenticate(c *fiber.Ctx) error {
	identity, now, err := s.verifyKey(c)
	if err != nil {
		return err
	}
	return s.rateLimit(c, identity, now)
}

// authenticateFree verifies the request's key like authenticate but
// spends no rate-limit token, and lets a key whose bucket is empty
// through: the rate-limit headers say what the bucket holds.
func (s *Server) authenticateFree(c *fiber.Ctx) error {
	identity, now, err := s.verifyKey(c)
	if err != nil {
		return err
	}
	s.setRateHeaders(c, s.limiter.peek(identity.KeyID, now))
	return c.Next()
}

// verifyKey finds and verifies the request's key, recording its identity
// on the request, and returns it with the request's time.
func (s *Server) verifyKey(c *fiber.Ctx) (keys.Identity, time.Time, error) {
	st := stateOf(c)
	if st != nil {
		st.keyed = true
	}
	raw, ok := presentedKey(c)
	if !ok {
		return keys.Identity{}, time.Time{}, models.ErrMissingKey
	}
	now := s.requestNow(c)
	identity, err := s.deps.Keys.VerifyCached(raw, now)
	source := verdictFromCache
	switch {
	case errors.Is(err, keys.ErrNotCached):
		if err := s.lookups.spend(c, now, errors.Is(err, keys.ErrVerdictExpired)); err != nil {
			s.metrics.lookupRefused(err)
			return keys.Identity{}, time.Time{}, err
		}
		identity, err = s.deps.Keys.VerifyAt(s.databaseCtx(c), raw, now)
		source = verdictFromDatabase
	case errors.Is(err, keys.ErrMalformedKey):
		source = verdictFromForm
	}
	s.metrics.keyVerified(source, err)
	if err != nil {
		return keys.Identity{}, time.Time{}, err
	}
	if st != nil {
		st.identity, st.authenticated = identity, true
	}
	return identity, now, nil
}

// presentedKey returns the key a request carries. A present but empty
// header counts as a presented (unknown) key, not a missing one. The
// string shares the request's memory (as fiber's Get): valid during the
// request only, which is all Verify needs.
func presentedKey(c *fiber.Ctx) (string, bool) {
	if raw := c.Request().Header.Peek(headerAuth); raw != nil {
		return strings.TrimSpace(utils.UnsafeString(raw)), true
	}
	value := strings.TrimSpace(c.Get(fiber.HeaderAuthorization))
	if value == "" {
		return "", false
	}
	scheme, token, found := strings.Cut(value, " ")
	if !found || !strings.EqualFold(scheme, "Bearer") {
		return "", true
	}
	return strings.TrimSpace(token), true
}

// identityOf returns the verified identity of an authenticated request.
func identityOf(c *fiber.Ctx) (keys.Identity, bool) {
	st := stateOf(c)
	if st == nil || !st.authenticated {
		return keys.Identity{}, false
	}
	return st.identity, true
}
