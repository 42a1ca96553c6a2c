package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/upstream/sandbox"
)

// localDeveloperID is the Discord user id of the developer created on the
// first start of the embedded mode, so a newcomer has a key without
// Discord.
const localDeveloperID = "0"

// welcomeFirstStart prints, on the first start of the embedded mode only,
// a ready-to-use key of the local developer and two curl lines to try.
// Later starts print nothing: the key stays available through
// "crowns keys issue --discord-user 0".
func welcomeFirstStart(ctx context.Context, w io.Writer, service *keys.Service, world *sandbox.World, listenAddr net.Addr) error {
	if _, err := service.Info(ctx, localDeveloperID); !errors.Is(err, models.ErrNotFound) {
		return err
	}
	issued, err := service.IssueOrRemind(ctx, keys.Developer{DiscordUserID: localDeveloperID, DisplayName: "local developer"}, "first start")
	if err != nil {
		return fmt.Errorf("create the local developer key: %w", err)
	}
	base := "http://" + loopbackHostPort(listenAddr)
	player := ""
	if tags := world.PlayerTags(); len(tags) > 0 {
		player = tags[0]
	}
	fmt.Fprintf(w, `
Crowns is ready, with the embedded database and the offline sandbox.
Your local developer key (print it again with: crowns keys issue --discord-user 0):

  %[1]s

Try:
  curl -H "auth: %[1]s" "%[2]s/clan/search?name=%[3]s&limit=3"
  curl -H "Authorization: Bearer %[1]s" "%[2]s/player/%[4]s/battles"

`, issued.Key, base, url.QueryEscape("royal"), player)
	return nil
}

// loopbackHostPort turns a listen address into one a local curl can reach:
// an unspecified host (":8080", "0.0.0.0:8080") becomes localhost.
func loopbackHostPort(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}
