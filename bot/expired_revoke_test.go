package bot_test

import (
	"strings"
	"testing"
	"time"
)

// A revoke button pressed after its window says that nothing was
// revoked, and claims nothing of the key: a moderator may have revoked
// it, or blacklisted its owner, meanwhile.
func TestALateRevokeButtonClaimsNothingOfTheKey(t *testing.T) {
	for _, meantime := range []string{"revoke", "blacklist"} {
		t.Run(meantime, func(t *testing.T) {
			d := newDesk(t, deskOptions{})
			key := d.getKey(developerID)
			d.ask("slash", keyChannelID, developerID, "revoke")
			d.keyadmin(moderatorPerms, meantime, userOption(developerID), stringOption("reason", "scraping"))
			if _, err := d.keys.VerifyAt(t.Context(), key, d.clock.Now()); err == nil {
				t.Fatalf("the key works after the moderator's %s", meantime)
			}
			d.clock.Advance(61 * time.Second)
			answer := pressRevoke(d)
			if !strings.Contains(answer, "confirmation has expired") || strings.Contains(answer, "still works") {
				t.Errorf("the revoke button pressed late: %q, want the expiry, and no claim that the key works", answer)
			}
		})
	}
}
