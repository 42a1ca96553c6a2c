package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"strings"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/upstream/sandbox"
)

// localDeveloperID is the Discord user id of the developer created on the
// first start of the embedded mode, so a newcomer has a key without
// Discord.
const localDeveloperID = "0"

// welcomeFirstStart prints, on the first start of the embedded mode only,
// a ready-to-use key of the local developer and two curl lines to try: as
// text, or with asJSON as one JSON record like the log's. Later starts
// print nothing: the key stays available through
// "crowns keys issue --discord-user 0".
func welcomeFirstStart(ctx context.Context, w io.Writer, asJSON bool, service *keys.Service, world *sandbox.World, listenAddr net.Addr) error {
	if _, err := service.Info(ctx, localDeveloperID); !errors.Is(err, models.ErrNotFound) {
		return err
	}
	issued, err := service.IssueOrRemind(ctx, keys.Developer{DiscordUserID: localDeveloperID, DisplayName: "local developer"}, "first start")
	if err != nil {
		return fmt.Errorf("create the local developer key: %w", err)
	}
	base := "http://" + loopbackHostPort(listenAddr.String(), "localhost")
	player := ""
	if tags := world.PlayerTags(); len(tags) > 0 {
		player = tags[0]
	}
	try := []string{
		fmt.Sprintf(`curl -H "auth: %s" "%s/clan/search?name=%s&limit=3"`, issued.Key, base, url.QueryEscape("royal")),
		fmt.Sprintf(`curl -H "Authorization: Bearer %s" "%s/player/%s/battles"`, issued.Key, base, player),
	}
	if asJSON {
		slog.New(slog.NewJSONHandler(w, nil)).Info(welcomeMessage,
			"key", issued.Key, "printAgain", welcomeReprint, "try", try)
		return nil
	}
	fmt.Fprintf(w, "\n%s.\nYour local developer key (print it again with: %s):\n\n  %s\n\nTry:\n  %s\n\n",
		welcomeMessage, welcomeReprint, issued.Key, strings.Join(try, "\n  "))
	return nil
}

// welcomeMessage and welcomeReprint are the first start's words.
const (
	welcomeMessage = "Crowns is ready, with the embedded database and the offline sandbox"
	welcomeReprint = "crowns keys issue --discord-user 0"
)
