package keys

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/crownsdev/crowns/models"
)

// Bounds of the free text the Service stores; a NUL in it is stored as
// U+FFFD (models.StorableText), which every transition applies after
// these checks.
const (
	maxDisplayNameLength = 100
	maxActorLength       = 100
	maxReasonLength      = 500
	maxDiscordUserDigits = 20
)

// CheckDiscordUserID reports whether id looks like a Discord user id: 1 to
// 20 decimal digits without a leading zero, at most the largest
// snowflake (2^64 - 1). Real snowflakes have 17 to 20 digits; shorter ones
// are accepted for tests and hand-made ids. A leading zero would name
// another developer than the same number without it ("0042" is not
// "42"), one no Discord member can be. It bounds the developers a
// transition records; those already stored are named by
// CheckStoredDiscordUserID.
func CheckDiscordUserID(id string) error {
	if err := CheckStoredDiscordUserID(id); err != nil {
		return err
	}
	if len(id) > 1 && id[0] == '0' {
		return models.Invalid("Discord user id must be 1 to %d digits, without a leading zero", maxDiscordUserDigits)
	}
	if _, err := strconv.ParseUint(id, 10, 64); err != nil {
		return models.Invalid("Discord user id must be at most %d", uint64(math.MaxUint64))
	}
	return nil
}

// CheckStoredDiscordUserID reports whether id may name a developer already
// stored: 1 to 20 decimal digits, what every release has taken. Releases
// before CheckDiscordUserID's bounds stored ids with a leading zero or past
// the largest snowflake; their developers are still shown, disabled,
// revoked and blacklisted, and only a new developer is held to those
// bounds.
func CheckStoredDiscordUserID(id string) error {
	if id == "" || len(id) > maxDiscordUserDigits || strings.Trim(id, "0123456789") != "" {
		return models.Invalid("Discord user id must be 1 to %d digits", maxDiscordUserDigits)
	}
	return nil
}

// checkTransition validates what every transition is given; a developer
// it records is checked by CheckDiscordUserID as well (loadDeveloper).
func checkTransition(discordUserID, actor, reason string) error {
	if err := CheckStoredDiscordUserID(discordUserID); err != nil {
		return err
	}
	if strings.TrimSpace(actor) == "" || utf8.RuneCountInString(actor) > maxActorLength {
		return models.Invalid("actor must be 1 to %d characters", maxActorLength)
	}
	return CheckReason(reason)
}

// CheckReason reports whether a transition's reason fits (at most 500
// characters).
func CheckReason(reason string) error {
	if utf8.RuneCountInString(reason) > maxReasonLength {
		return models.Invalid("reason must be at most %d characters", maxReasonLength)
	}
	return nil
}

// storableReason is a transition's reason as it is stored, logged and
// posted to the log channel: storable text, with any key in it redacted
// (a moderator may paste the leaked key into the reason of its
// revocation; see Redact).
func storableReason(reason string) string {
	return Redact(models.StorableText(reason))
}

// CheckDisplayName reports whether a developer's display name fits (at
// most 100 characters).
func CheckDisplayName(name string) error {
	if utf8.RuneCountInString(name) > maxDisplayNameLength {
		return models.Invalid("display name must be at most %d characters", maxDisplayNameLength)
	}
	return nil
}

// checkDeveloper validates a developer asking for a key.
func checkDeveloper(dev Developer, actor string) error {
	if err := CheckDisplayName(dev.DisplayName); err != nil {
		return err
	}
	return checkTransition(dev.DiscordUserID, actor, "")
}
