package bot_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crownsdev/crowns/bot"
	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
)

// failingIssues is a keys service whose first IssueOrRemind calls fail as
// a database that cannot be reached does.
type failingIssues struct {
	bot.KeyService
	failures atomic.Int32
}

func (f *failingIssues) IssueOrRemind(ctx context.Context, dev keys.Developer, actor string) (keys.Issued, error) {
	if f.failures.Add(-1) >= 0 {
		return keys.Issued{}, models.Unavailable("database", 0, errors.New("connection refused"))
	}
	return f.KeyService.IssueOrRemind(ctx, dev, actor)
}

// A /key get the key desk refuses (the member is blacklisted, or the
// database cannot be reached) hands out nothing and posts nothing: it
// holds back none of the member's key commands, which answer at once
// (the blacklisting again, or the key once the database is back).
func TestARefusedGetUsesNoCoolDown(t *testing.T) {
	for _, via := range vias {
		t.Run("blacklisted/"+via, func(t *testing.T) {
			d := newDesk(t, deskOptions{coolDown: 30 * time.Second})
			d.keyadmin(moderatorPerms, "blacklist", userOption(developerID), stringOption("reason", "scraping"))
			for _, sub := range []string{"get", "get", "regenerate"} {
				if answer := d.ask(via, keyChannelID, developerID, sub); !strings.Contains(answer, "can't get a developer key") {
					t.Errorf("%s by a blacklisted member: %q, want the blacklisting", sub, answer)
				}
				d.clock.Advance(time.Second)
			}
		})
		t.Run("database unavailable/"+via, func(t *testing.T) {
			failing := &failingIssues{}
			failing.failures.Store(1)
			d := newDesk(t, deskOptions{coolDown: 30 * time.Second,
				wrapKeys: func(k bot.KeyService) bot.KeyService { failing.KeyService = k; return failing }})
			if answer := d.ask(via, keyChannelID, developerID, "get"); !strings.Contains(answer, "try again in a minute") {
				t.Fatalf("get while the database fails: %q", answer)
			}
			d.clock.Advance(5 * time.Second)
			if answer := d.ask(via, keyChannelID, developerID, "get"); !strings.Contains(answer, "on its way") {
				t.Errorf("get 5 s later, the database back: %q, want the key", answer)
			}
			d.assertVerdict(d.keyFromLastDM(developerID), nil)
		})
	}
}

// databaseOutage is a keys service that, while down is set, fails the
// calls a /key get makes as a database that cannot be reached does.
type databaseOutage struct {
	bot.KeyService
	down atomic.Bool
}

func (o *databaseOutage) unreachable() error {
	return models.Unavailable("database", 0, errors.New("connection refused"))
}

func (o *databaseOutage) Info(ctx context.Context, discordUserID string) (keys.DeveloperInfo, error) {
	if o.down.Load() {
		return keys.DeveloperInfo{}, o.unreachable()
	}
	return o.KeyService.Info(ctx, discordUserID)
}

func (o *databaseOutage) IssueOrRemind(ctx context.Context, dev keys.Developer, actor string) (keys.Issued, error) {
	if o.down.Load() {
		return keys.Issued{}, o.unreachable()
	}
	return o.KeyService.IssueOrRemind(ctx, dev, actor)
}

// The get a member is owed after a key the bot could not send, made while
// the database cannot be reached, leaves the debt owed: the get the
// answer asks for, once the database is back, sends the key without
// waiting for the cool-down.
func TestARefusedOwedGetKeepsTheKeyOwed(t *testing.T) {
	for _, failing := range []string{"IssueOrRemind", "Info and IssueOrRemind"} {
		t.Run(failing, func(t *testing.T) {
			issues := &failingIssues{}
			outage := &databaseOutage{}
			d := newDesk(t, deskOptions{coolDown: 30 * time.Second,
				wrapKeys: func(k bot.KeyService) bot.KeyService {
					issues.KeyService = k
					outage.KeyService = issues
					return outage
				}})
			d.discord.Fail(closedDirectMessages)
			if answer := d.ask("slash", keyChannelID, developerID, "get"); !strings.Contains(answer, "again") {
				t.Fatalf("get with direct messages closed: %q", answer)
			}
			d.discord.Heal()
			d.clock.Advance(5 * time.Second)
			if failing == "IssueOrRemind" {
				issues.failures.Store(1)
			} else {
				outage.down.Store(true)
			}
			if answer := d.ask("slash", keyChannelID, developerID, "get"); !strings.Contains(answer, "try again in a minute") {
				t.Fatalf("the owed get while the database fails: %q, want to try again", answer)
			}
			outage.down.Store(false)
			d.clock.Advance(5 * time.Second)
			if answer := d.ask("slash", keyChannelID, developerID, "get"); !strings.Contains(answer, "sent your key") {
				t.Fatalf("get 5 s later, the database back: %q, want the owed key sent", answer)
			}
			d.assertVerdict(d.keyFromLastDM(developerID), nil)
		})
	}
}
