package upstream_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/legacy"
	"github.com/crownsdev/crowns/upstream"
)

// A 200 whose body holds no list (null, an empty object, a list under
// another name) is not the game's answer: it is unavailable, never taken
// for "no clan matches" or "no battles", which callers would cache. An
// empty list that is there is an empty answer.
func TestListAnswerWithoutItsList(t *testing.T) {
	calls := map[string]func(*upstream.Client) (int, error){
		"clan search": func(c *upstream.Client) (int, error) {
			page, err := c.SearchClans(context.Background(), legacy.ClanSearchQuery{Name: "royal", MinScore: -1})
			return len(page.Items), err
		},
		"battle log": func(c *upstream.Client) (int, error) {
			battles, err := c.PlayerBattles(context.Background(), "C2Q8")
			return len(battles), err
		},
		"tournament search": func(c *upstream.Client) (int, error) {
			found, err := c.SearchTournaments(context.Background(), "cup", 0)
			return len(found), err
		},
	}
	missing := map[string][]string{
		"clan search":       {`null`, `{}`, `{"items": null}`, `{"clans": []}`},
		"battle log":        {`null`},
		"tournament search": {`null`, `{}`, `{"items": null}`},
	}
	empty := map[string]string{
		"clan search":       `{"items": [], "paging": {"cursors": {}}}`,
		"battle log":        `[]`,
		"tournament search": `{"items": [], "paging": {"cursors": {}}}`,
	}
	for name, call := range calls {
		for _, body := range missing[name] {
			t.Run(name+" "+body, func(t *testing.T) {
				base, _ := countingUpstream(t, errorAnswer(200, "", body))
				client, logs := newClient(t, base, upstream.Config{})
				n, err := call(client)
				if !errors.Is(err, models.ErrUnavailable) {
					t.Fatalf("%d items, error %v; want unavailable", n, err)
				}
				if out := logs.String(); !strings.Contains(out, "level=ERROR") || !strings.Contains(out, "without its list") {
					t.Errorf("log lacks the error:\n%s", out)
				}
			})
		}
		t.Run(name+" empty", func(t *testing.T) {
			base, _ := countingUpstream(t, errorAnswer(200, "", empty[name]))
			client, _ := newClient(t, base, upstream.Config{})
			if n, err := call(client); err != nil || n != 0 {
				t.Fatalf("%d items, error %v; want an empty answer", n, err)
			}
		})
	}
}
