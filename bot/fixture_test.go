package bot_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/crownsdev/crowns/models/store"

	"github.com/bwmarrin/discordgo"

	"github.com/crownsdev/crowns/bot"
	"github.com/crownsdev/crowns/bot/discordtest"
	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// The community server of the tests.
const (
	guildID        = "700000000000000001"
	keyChannelID   = "700000000000000010"
	logChannelID   = "700000000000000020"
	otherChannelID = "700000000000000030"
	developerID    = "800000000000000001"
	otherDevID     = "800000000000000002"
	moderatorID    = "800000000000000099"
	otherModID     = "800000000000000098"
)

// moderatorPerms are the permissions of a member with Ban Members.
const moderatorPerms = int64(discordgo.PermissionBanMembers | discordgo.PermissionSendMessages)

// testKeyRate is the desk's per-key rate limit, a slow one: 300 requests
// served are 20 minutes at the limit (see the usage alerts).
const testKeyRate = 0.25

// keyPattern finds a Crowns key in any text.
var keyPattern = regexp.MustCompile(`crw_[0-9A-Za-z]{36}`)

// desk is a bot wired to real parts: the keys service on a fresh
// database, which the API asks of every request's key, and a real
// discordgo session talking to a fake Discord.
type desk struct {
	t       *testing.T
	bot     *bot.Bot
	discord *discordtest.Server
	keys    *keys.Service
	db      *store.Store
	clock   *models.ManualClock
	logs    *lockedBuffer
	// secret is the keys service's, for a second service on db.
	secret []byte
	nextID atomic.Int64
	// handlerTimeout, when set, bounds each handler call as Run does.
	handlerTimeout time.Duration
}

// deskOptions vary the bot of a desk.
type deskOptions struct {
	logChannel string
	prefix     string
	// reconnectDelay is the bot's first wait before retrying the gateway.
	reconnectDelay time.Duration
	// handlerTimeout, when set, is the bot's HandlerTimeout, and the desk
	// calls every handler with a context of that deadline, as Run does;
	// unset, handlers get a context without deadline.
	handlerTimeout time.Duration
	// directMessageTimeout is the bot's DirectMessageTimeout.
	directMessageTimeout time.Duration
	weekly               bot.WeeklyCollection
	db                   *store.Store
	discord              *discordtest.Server
	secret               []byte
	// metrics, when set, receives the bot's metrics.
	metrics prometheus.Registerer
	// coolDown is the bot's CommandCoolDown; unset, none: most tests run
	// several commands at one instant of the desk's clock.
	coolDown time.Duration
	// wrapKeys, when set, stands between the bot and the keys service
	// (to make some of its calls fail).
	wrapKeys func(bot.KeyService) bot.KeyService
}

func newDesk(t *testing.T, opts deskOptions) *desk {
	t.Helper()
	db := opts.db
	if db == nil {
		db = storetest.Open(t, storetest.Engines()[0])
	}
	discord := opts.discord
	if discord == nil {
		discord = discordtest.New(t)
	}
	discord.AddChannels(
		discordgo.Channel{ID: keyChannelID, GuildID: guildID, Name: "developer-keys", Type: discordgo.ChannelTypeGuildText},
		discordgo.Channel{ID: logChannelID, GuildID: guildID, Name: "key-log", Type: discordgo.ChannelTypeGuildText},
		discordgo.Channel{ID: otherChannelID, GuildID: guildID, Name: "general", Type: discordgo.ChannelTypeGuildText},
	)
	secret := opts.secret
	if secret == nil {
		secret = newSecret(t)
	}
	clock := models.NewManualClock(time.Date(2025, 6, 2, 9, 0, 0, 0, time.UTC))
	coolDown := opts.coolDown
	if coolDown == 0 {
		coolDown = -1
	}
	logs := &lockedBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	service, err := keys.NewService(db, keys.Config{Secret: secret, Clock: clock, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	var deskKeys bot.KeyService = service
	if opts.wrapKeys != nil {
		deskKeys = opts.wrapKeys(service)
	}
	b, err := bot.New(bot.Config{
		Token:                "test-token",
		GuildID:              guildID,
		KeyChannelID:         keyChannelID,
		LogChannelID:         opts.logChannel,
		Prefix:               opts.prefix,
		ReconnectDelay:       opts.reconnectDelay,
		HandlerTimeout:       opts.handlerTimeout,
		DirectMessageTimeout: opts.directMessageTimeout,
		CommandCoolDown:      coolDown,
		RateLimitPerSecond:   testKeyRate,
		Clock:                clock,
		Logger:               logger,
		HTTPClient:           discord.Client(),
		Metrics:              opts.metrics,
	}, bot.Dependencies{Keys: deskKeys, Cursors: db, Weekly: opts.weekly, Usage: service})
	if err != nil {
		t.Fatal(err)
	}
	d := &desk{t: t, bot: b, discord: discord, keys: service, db: db, clock: clock, logs: logs, secret: secret,
		handlerTimeout: opts.handlerTimeout}
	d.nextID.Store(500000000000000000)
	t.Cleanup(func() { d.assertNoKeyLeaked() })
	return d
}

func newSecret(t *testing.T) []byte {
	t.Helper()
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		t.Fatal(err)
	}
	return secret
}

func (d *desk) id() string { return strconv.FormatInt(d.nextID.Add(1), 10) }

// handle calls a handler the way Run does: with a context of the desk's
// handler timeout, when it has one.
func (d *desk) handle(handler func(context.Context)) {
	ctx := context.Background()
	if d.handlerTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d.handlerTimeout)
		defer cancel()
	}
	handler(ctx)
}

// slash runs a slash command as a member in a channel and returns the
// interaction (its token finds the answer).
func (d *desk) slash(userID, channelID string, permissions int64, command, sub string, options ...*discordgo.ApplicationCommandInteractionDataOption) *discordgo.Interaction {
	d.t.Helper()
	return d.slashIn(guildID, userID, channelID, permissions, command, sub, options...)
}

// slashIn is slash run in the server guild, which may be another than
// the community server.
func (d *desk) slashIn(guild, userID, channelID string, permissions int64, command, sub string, options ...*discordgo.ApplicationCommandInteractionDataOption) *discordgo.Interaction {
	d.t.Helper()
	i := &discordgo.Interaction{
		ID: d.id(), AppID: discordtest.DefaultApplicationID, Type: discordgo.InteractionApplicationCommand,
		GuildID: guild, ChannelID: channelID, Token: "token-" + d.id(),
		Member: &discordgo.Member{User: &discordgo.User{ID: userID, Username: "user" + userID}, Permissions: permissions},
		Data: discordgo.ApplicationCommandInteractionData{ID: d.id(), Name: command, Options: []*discordgo.ApplicationCommandInteractionDataOption{
			{Name: sub, Type: discordgo.ApplicationCommandOptionSubCommand, Options: options},
		}},
	}
	d.handle(func(ctx context.Context) {
		d.bot.HandleInteractionCreate(ctx, &discordgo.InteractionCreate{Interaction: i})
	})
	return i
}

// press presses the regenerate confirmation button offered to owner.
func (d *desk) press(userID, owner string) *discordgo.Interaction {
	d.t.Helper()
	return d.pressButton(userID, "regenerate", owner)
}

// pressButton presses the confirmation button of action ("regenerate"
// or "revoke") offered to owner.
func (d *desk) pressButton(userID, action, owner string) *discordgo.Interaction {
	d.t.Helper()
	i := &discordgo.Interaction{
		ID: d.id(), AppID: discordtest.DefaultApplicationID, Type: discordgo.InteractionMessageComponent,
		GuildID: guildID, ChannelID: keyChannelID, Token: "token-" + d.id(),
		Member: &discordgo.Member{User: &discordgo.User{ID: userID, Username: "user" + userID}},
		Data:   discordgo.MessageComponentInteractionData{CustomID: "crowns:" + action + ":" + owner, ComponentType: discordgo.ButtonComponent},
	}
	d.handle(func(ctx context.Context) {
		d.bot.HandleInteractionCreate(ctx, &discordgo.InteractionCreate{Interaction: i})
	})
	return i
}

// say sends a text message as a member in a channel of the community
// server.
func (d *desk) say(userID, channelID, content string) *discordgo.Message {
	d.t.Helper()
	m := &discordgo.Message{ID: d.id(), ChannelID: channelID, GuildID: guildID, Content: content,
		Author: &discordgo.User{ID: userID, Username: "user" + userID}}
	d.handle(func(ctx context.Context) { d.bot.HandleMessageCreate(ctx, &discordgo.MessageCreate{Message: m}) })
	return m
}

func userOption(userID string) *discordgo.ApplicationCommandInteractionDataOption {
	return &discordgo.ApplicationCommandInteractionDataOption{Name: "user", Type: discordgo.ApplicationCommandOptionUser, Value: userID}
}

func stringOption(name, value string) *discordgo.ApplicationCommandInteractionDataOption {
	return &discordgo.ApplicationCommandInteractionDataOption{Name: name, Type: discordgo.ApplicationCommandOptionString, Value: value}
}

// answerOf returns the edited answer of an interaction: its text, its
// embeds as text, and whether it offers a button.
func (d *desk) answerOf(i *discordgo.Interaction) (text string, embeds string, button bool) {
	d.t.Helper()
	edits := d.discord.RequestsTo("PATCH", "/webhooks/"+i.AppID+"/"+i.Token+"/messages/@original")
	if len(edits) != 1 {
		d.t.Fatalf("interaction %s was answered %d times, want 1", i.ID, len(edits))
	}
	var edit struct {
		Content    string                    `json:"content"`
		Embeds     []*discordgo.MessageEmbed `json:"embeds"`
		Components []json.RawMessage         `json:"components"`
	}
	if err := json.Unmarshal(edits[0].Body, &edit); err != nil {
		d.t.Fatal(err)
	}
	return edit.Content, embedsText(edit.Embeds), len(edit.Components) > 0
}

// embedsText renders embeds as lines "title", "name: value" and "footer".
func embedsText(embeds []*discordgo.MessageEmbed) string {
	var b strings.Builder
	for _, e := range embeds {
		b.WriteString("\n" + e.Title)
		for _, f := range e.Fields {
			b.WriteString("\n" + f.Name + ": " + f.Value)
		}
		if e.Footer != nil {
			b.WriteString("\n" + e.Footer.Text)
		}
	}
	return b.String()
}

// answerText is the text of an interaction's answer.
func (d *desk) answerText(i *discordgo.Interaction) string {
	d.t.Helper()
	text, _, _ := d.answerOf(i)
	return text
}

// channelPosts returns the text, followed by its embeds, of each message
// posted in a channel.
func (d *desk) channelPosts(channelID string) []string {
	d.t.Helper()
	var posts []string
	for _, r := range d.discord.RequestsTo("POST", "/channels/"+channelID+"/messages") {
		var sent discordgo.MessageSend
		if err := json.Unmarshal(r.Body, &sent); err != nil {
			d.t.Fatal(err)
		}
		posts = append(posts, sent.Content+embedsText(sent.Embeds))
	}
	return posts
}

// directMessages returns the contents of the direct messages sent to a
// user (including refused ones).
func (d *desk) directMessages(userID string) []string {
	var texts []string
	for _, r := range d.discord.RequestsTo("POST", "/channels/"+discordtest.DMChannelID(userID)+"/messages") {
		var sent discordgo.MessageSend
		if err := json.Unmarshal(r.Body, &sent); err != nil {
			d.t.Fatal(err)
		}
		texts = append(texts, sent.Content)
	}
	return texts
}

// keyFromLastDM returns the key of the last direct message to a user.
func (d *desk) keyFromLastDM(userID string) string {
	d.t.Helper()
	dms := d.directMessages(userID)
	if len(dms) == 0 {
		d.t.Fatalf("no direct message to %s", userID)
	}
	key := keyPattern.FindString(dms[len(dms)-1])
	if key == "" {
		d.t.Fatalf("last direct message to %s holds no key: %q", userID, dms[len(dms)-1])
	}
	return key
}

// getKey obtains a key for a developer with /key get and returns it.
func (d *desk) getKey(userID string) string {
	d.t.Helper()
	d.slash(userID, keyChannelID, 0, "key", "get")
	return d.keyFromLastDM(userID)
}

// assertNewKeyWorks gets a key for a developer with /key get and checks
// it is not old and the API accepts it.
func (d *desk) assertNewKeyWorks(userID, old string) {
	d.t.Helper()
	fresh := d.getKey(userID)
	if fresh == old {
		d.t.Fatal("the developer got the old key back")
	}
	d.assertVerdict(fresh, nil)
}

// assertVerdict checks what the keys service, asked as the API asks it
// for every request, says of key: nil for a key that works, else the
// verdict the API answers with its 401 or 403 (models.ErrUnknownKey,
// ErrKeyDisabled or ErrKeyBlacklisted; the API's own tests hold each to
// its status and text).
func (d *desk) assertVerdict(key string, want error) {
	d.t.Helper()
	_, err := d.keys.VerifyAt(context.Background(), key, d.clock.Now())
	if !errors.Is(err, want) {
		d.t.Errorf("the key's verdict is %v, want %v", err, want)
	}
}

// assertNoKeyLeaked checks that no key ever appeared outside a direct
// message: not in any other request body, not in any log line.
func (d *desk) assertNoKeyLeaked() {
	d.t.Helper()
	for _, r := range d.discord.Requests() {
		if !strings.Contains(withoutRedactedKeys(string(r.Body)), "crw_") {
			continue
		}
		if r.Method != "POST" || !strings.HasPrefix(r.Path, "/channels/dm") {
			d.t.Errorf("a key went to Discord outside a direct message: %s %s: %s", r.Method, r.Path, r.Body)
		}
	}
	if strings.Contains(withoutRedactedKeys(d.logs.String()), "crw_") {
		d.t.Errorf("a key appeared in the logs:\n%s", d.logs.String())
	}
}

// withoutRedactedKeys is text without the marks of keys redacted from
// it (a reason a moderator pasted a key into, say): what is left holds
// "crw_" only where a key, or the start of one, went out.
func withoutRedactedKeys(text string) string {
	return strings.ReplaceAll(text, "crw_[redacted]", "")
}

// lockedBuffer is a log destination safe for concurrent writers.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	// written is closed and replaced at every write (nil until awaited).
	written chan struct{}
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.written != nil {
		close(b.written)
		b.written = nil
	}
	return b.buf.Write(p)
}

// awaitLog blocks until the logs hold text and returns them; after
// awaitTimeout it fails the test. It is for what the bot logs from its
// own goroutines.
func (d *desk) awaitLog(text string) string {
	d.t.Helper()
	deadline := time.NewTimer(awaitTimeout)
	defer deadline.Stop()
	for {
		d.logs.mu.Lock()
		logs := d.logs.buf.String()
		if d.logs.written == nil {
			d.logs.written = make(chan struct{})
		}
		written := d.logs.written
		d.logs.mu.Unlock()
		if strings.Contains(logs, text) {
			return logs
		}
		select {
		case <-written:
		case <-deadline.C:
			d.t.Fatalf("waited %s for the logs to say %q:\n%s", awaitTimeout, text, logs)
			return ""
		}
	}
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// assertEphemeral checks that an interaction was answered with one reply
// only its member sees: the deferred reply of a slash command, or a
// direct reply, carrying the ephemeral flag (64).
func (d *desk) assertEphemeral(i *discordgo.Interaction) {
	d.t.Helper()
	callbacks := d.discord.RequestsTo("POST", "/interactions/"+i.ID+"/"+i.Token+"/callback")
	if len(callbacks) != 1 {
		d.t.Fatalf("interaction %s was acknowledged %d times, want 1", i.ID, len(callbacks))
	}
	var reply struct {
		Type discordgo.InteractionResponseType `json:"type"`
		Data *struct {
			Flags discordgo.MessageFlags `json:"flags"`
		} `json:"data"`
	}
	if err := json.Unmarshal(callbacks[0].Body, &reply); err != nil {
		d.t.Fatal(err)
	}
	if reply.Data == nil || reply.Data.Flags&discordgo.MessageFlagsEphemeral == 0 {
		d.t.Errorf("interaction %s was acknowledged without the ephemeral flag: %s", i.ID, callbacks[0].Body)
	}
}

// assertKeyOnlyInDirectMessages checks that every request body holding a
// key is a direct message to userID (delivered or refused).
func (d *desk) assertKeyOnlyInDirectMessages(userID string) {
	d.t.Helper()
	dmPath := "/channels/" + discordtest.DMChannelID(userID) + "/messages"
	for _, r := range d.discord.Requests() {
		if strings.Contains(string(r.Body), "crw_") && (r.Method != "POST" || r.Path != dmPath) {
			d.t.Errorf("a key was sent to %s %s", r.Method, r.Path)
		}
	}
}
