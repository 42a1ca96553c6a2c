package bot_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"

	"github.com/crownsdev/crowns/bot/discordtest"
	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
)

// Every request the bot sends in a run of every command, button, form
// and post, with the longest texts the keys service stores, keeps to what
// Discord's API takes: its methods and paths, and in each body the
// counts, lengths and values Discord checks (as its API reference and
// OpenAPI description state them).
func TestEveryRequestToDiscordIsOneDiscordTakes(t *testing.T) {
	d := newDesk(t, deskOptions{logChannel: logChannelID})
	ctx := t.Context()
	longName := strings.Repeat("ж", 100)                         // the longest display name the keys service stores
	longReason := strings.Repeat("ж", 500)                       // the longest reason it stores
	longActor := "discord:" + strings.Repeat("9", 92)            // the longest actor
	longURL := "https://example.com/" + strings.Repeat("ж", 500) // kept to 400 characters

	d.discord.SetMembers(developerID, otherDevID, moderatorID)
	d.bot.HandleReady(ctx, &discordgo.Ready{
		User:        &discordgo.User{ID: discordtest.DefaultBotUserID},
		Application: &discordgo.Application{ID: discordtest.DefaultApplicationID},
		Guilds:      []*discordgo.Guild{{ID: guildID}},
	})
	named := func(userID string) {
		t.Helper()
		if _, err := d.keys.IssueOrRemind(ctx, keys.Developer{DiscordUserID: userID, DisplayName: longName}, "cli"); err != nil {
			t.Fatal(err)
		}
	}
	busy := func(userID string) {
		t.Helper()
		d.use(userID, "/clan/search", models.KeyUsageCount{Requests: 1000, RateLimited: 700, ClientErrors: 3}, 0)
		for _, route := range []string{"/clan/:tag/history", "/clan/:tag/track", "/player/:tag/battles", "/tournaments/:tag", "/auth/stats"} {
			d.use(userID, route, models.KeyUsageCount{Requests: 9_999_999_999, ClientErrors: 9_999_999_999}, 1)
		}
	}

	// A member's slash commands, buttons and text commands.
	d.slash(developerID, keyChannelID, 0, "key", "get")
	if _, err := d.bot.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	d.slash(developerID, otherChannelID, 0, "key", "get")
	busy(developerID)
	d.slash(developerID, keyChannelID, 0, "key", "stats")
	d.slash(developerID, keyChannelID, 0, "key", "regenerate")
	d.pressButton(otherDevID, "regenerate", developerID)
	d.press(developerID, developerID)
	d.press(developerID, developerID)
	d.slash(developerID, keyChannelID, 0, "key", "revoke")
	d.pressButton(developerID, "revoke", developerID)
	d.say(developerID, keyChannelID, "!key")
	d.say(developerID, keyChannelID, "!key get")
	d.say(developerID, keyChannelID, "!key regenerate")
	d.say(developerID, keyChannelID, "!key revoke")
	d.say(developerID, otherChannelID, "!key get")
	d.discord.Fail(discordtest.Rule{Method: "POST", Path: "/users/@me/channels", Failure: discordtest.DMClosed, Times: 1})
	d.slash(otherDevID, keyChannelID, 0, "key", "get")
	d.slash(otherDevID, keyChannelID, 0, "key", "get")

	// Moderators' commands, with the longest texts stored and the most
	// keys listed.
	for n := range 10 {
		heavy := "1844674407370955160" + strconv.Itoa(n)
		named(heavy)
		busy(heavy)
	}
	named(developerID)
	busy(developerID)
	d.keyadmin(moderatorPerms, "info", userOption(developerID))
	d.keyadmin(moderatorPerms, "top")
	d.keyadmin(moderatorPerms, "top", stringOption("period", "week"))
	d.keyadmin(moderatorPerms, "revoke", userOption(otherDevID), stringOption("reason", strings.Repeat("ж", 200)))
	d.keyadmin(moderatorPerms, "revoke", userOption(otherDevID))
	d.keyadmin(moderatorPerms, "blacklist", userOption(otherDevID), stringOption("reason", strings.Repeat("ж", 200)))
	d.keyadmin(moderatorPerms, "unblacklist", userOption(otherDevID))
	d.keyadmin(0, "info", userOption(developerID))
	d.slash(moderatorID, otherChannelID, moderatorPerms, "clan", "weekly", stringOption("tag", "#2CCCP"), stringOption("state", "on"))

	// The log channel: key events, a usage alert, its button and form.
	if posted, err := d.bot.CheckUsageAlerts(ctx); err != nil || posted == 0 {
		t.Fatalf("CheckUsageAlerts posted %d (%v), want alerts", posted, err)
	}
	d.component(developerID, 0, "crowns:blacklist:"+developerID)
	d.component(moderatorID, moderatorPerms, "crowns:blacklist:"+developerID)
	d.submitReason(moderatorID, moderatorPerms, strings.Repeat("ж", 200))
	if err := d.keys.Unblacklist(ctx, developerID, "cli"); err != nil {
		t.Fatal(err)
	}
	named(developerID)
	busy(developerID)
	if err := d.keys.Blacklist(ctx, developerID, longReason, longActor); err != nil {
		t.Fatal(err)
	}
	d.component(otherModID, moderatorPerms, "crowns:blacklist:"+developerID)
	d.submitReason(otherModID, moderatorPerms, "again")
	d.keyadmin(moderatorPerms, "blacklist", userOption(developerID), stringOption("reason", "again"))
	d.keyadmin(moderatorPerms, "info", userOption(developerID))
	leaked := d.getKey(moderatorID)
	if _, err := d.keys.RevokeLeaked(ctx, leaked, longURL); err != nil {
		t.Fatal(err)
	}
	if _, err := d.bot.PostPendingEvents(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := d.bot.TellLeakedKeyOwners(ctx); err != nil {
		t.Fatal(err)
	}

	seen := map[string]bool{}
	longest := map[string]bool{}
	for _, r := range d.discord.Requests() {
		operation, problems := checkDiscordRequest(r)
		seen[operation] = true
		for _, text := range []string{longName, longReason, strings.Repeat("ж", 400)} {
			if strings.Contains(string(r.Body), text) {
				longest[text] = true
			}
		}
		for _, p := range problems {
			t.Errorf("%s %s: %s\nbody: %s", r.Method, r.Path, p, r.Body)
		}
	}
	for _, operation := range []string{"bulk_set_guild_application_commands", "list_guild_members", "create_dm", "create_message",
		"delete_message", "update_original_webhook_message", "interaction callback 4", "interaction callback 5",
		"interaction callback 6", "interaction callback 9"} {
		if !seen[operation] {
			t.Errorf("the run sent no %s request", operation)
		}
	}
	if len(longest) != 3 {
		t.Errorf("the longest name, reason and address reached Discord in %d of 3 cases: the run misses what it means to check", len(longest))
	}
}

// checkDiscordRequest names the operation of Discord's API a request is
// (as Discord's OpenAPI description names it), and lists what in it
// Discord would refuse.
func checkDiscordRequest(r discordtest.Request) (operation string, problems []string) {
	var p checks
	segments := strings.Split(strings.Trim(r.Path, "/"), "/")
	is := func(method, pattern string) bool {
		want := strings.Split(strings.Trim(pattern, "/"), "/")
		if r.Method != method || len(want) != len(segments) {
			return false
		}
		for i := range want {
			if want[i] != "*" && want[i] != segments[i] {
				return false
			}
		}
		return true
	}
	decode := func(into any) bool {
		if err := json.Unmarshal(r.Body, into); err != nil {
			p.add("body is not the JSON expected: %v", err)
			return false
		}
		return true
	}
	switch {
	case is("GET", "/gateway"), is("GET", "/users/@me"):
		return "get " + r.Path, nil
	case is("PUT", "/applications/*/guilds/*/commands"):
		p.snowflake("application_id", segments[1])
		p.snowflake("guild_id", segments[3])
		var commands []wireCommand
		if decode(&commands) {
			p.commands(commands)
		}
		return "bulk_set_guild_application_commands", p
	case is("GET", "/guilds/*/members"):
		p.snowflake("guild_id", segments[1])
		p.membersQuery(r.Query)
		return "list_guild_members", p
	case is("POST", "/users/@me/channels"):
		var body struct {
			RecipientID string `json:"recipient_id"`
		}
		if decode(&body) {
			p.snowflake("recipient_id", body.RecipientID)
		}
		return "create_dm", p
	case is("POST", "/channels/*/messages"):
		var message wireMessage
		if decode(&message) {
			p.message("", message, true)
		}
		return "create_message", p
	case is("DELETE", "/channels/*/messages/*"):
		p.snowflake("message_id", segments[3])
		return "delete_message", p
	case is("PATCH", "/webhooks/*/*/messages/@original"):
		p.snowflake("application_id", segments[1])
		var message wireMessage
		if decode(&message) {
			p.message("", message, false)
		}
		return "update_original_webhook_message", p
	case is("POST", "/interactions/*/*/callback"):
		var callback struct {
			Type int             `json:"type"`
			Data json.RawMessage `json:"data"`
		}
		if !decode(&callback) {
			return "interaction callback", p
		}
		p.interactionCallback(callback.Type, callback.Data)
		return fmt.Sprintf("interaction callback %d", callback.Type), p
	}
	p.add("no operation of Discord's API is %s %s", r.Method, r.Path)
	return r.Method + " " + r.Path, p
}

// checks collects what Discord would refuse.
type checks []string

func (c *checks) add(format string, args ...any) { *c = append(*c, fmt.Sprintf(format, args...)) }

// length checks a text's length in characters.
func (c *checks) length(field, text string, least, most int) {
	if n := utf8.RuneCountInString(text); n < least || n > most {
		c.add("%s is %d characters, want %d to %d", field, n, least, most)
	}
}

var snowflakePattern = regexp.MustCompile(`^[0-9]{1,20}$`)

func (c *checks) snowflake(field, id string) {
	if !snowflakePattern.MatchString(id) {
		c.add("%s %q is no snowflake", field, id)
	}
}

// wireCommand is an application command as the bot sends it.
type wireCommand struct {
	Type                     *int            `json:"type"`
	Name                     string          `json:"name"`
	Description              string          `json:"description"`
	Options                  []wireOption    `json:"options"`
	DefaultMemberPermissions json.RawMessage `json:"default_member_permissions"`
	DMPermission             *bool           `json:"dm_permission"`
	Contexts                 []int           `json:"contexts"`
}

type wireOption struct {
	Type         int          `json:"type"`
	Name         string       `json:"name"`
	Description  string       `json:"description"`
	Required     bool         `json:"required"`
	Options      []wireOption `json:"options"`
	Choices      []wireChoice `json:"choices"`
	Autocomplete bool         `json:"autocomplete"`
	MinLength    *int         `json:"min_length"`
	MaxLength    *int         `json:"max_length"`
}

type wireChoice struct {
	Name  string `json:"name"`
	Value any    `json:"value"`
}

// commandNamePattern is Discord's rule for command, option and
// subcommand names (lower case where a letter has cases).
var commandNamePattern = regexp.MustCompile(`^[-_'\p{L}\p{N}\p{Devanagari}\p{Thai}]{1,32}$`)

// Application command option types.
const (
	optionSubcommand      = 1
	optionSubcommandGroup = 2
	optionString          = 3
	optionAttachment      = 11
)

func (c *checks) commands(commands []wireCommand) {
	if len(commands) > 100 {
		c.add("%d chat input commands, want at most 100", len(commands))
	}
	names := map[string]bool{}
	for _, command := range commands {
		where := "command " + command.Name
		if command.Type != nil && *command.Type != 1 {
			c.add("%s has type %d, want a chat input command (1)", where, *command.Type)
		}
		if names[command.Name] {
			c.add("%s is registered twice", where)
		}
		names[command.Name] = true
		c.name(where, command.Name)
		c.length(where+" description", command.Description, 1, 100)
		if raw := string(command.DefaultMemberPermissions); raw != "" && raw != "null" {
			bits, err := strconv.ParseUint(strings.Trim(raw, `"`), 10, 64)
			if err != nil || bits >= 1<<54 {
				c.add("%s default_member_permissions %s is no permission set", where, raw)
			}
		}
		for _, context := range command.Contexts {
			if context < 0 || context > 2 {
				c.add("%s context %d is none of 0, 1, 2", where, context)
			}
		}
		total := utf8.RuneCountInString(command.Name) + utf8.RuneCountInString(command.Description)
		total += c.options(where, command.Options, 0)
		if total > 4000 {
			c.add("%s's names, descriptions and choices are %d characters together, want at most 4000", where, total)
		}
	}
}

func (c *checks) name(where, name string) {
	if !commandNamePattern.MatchString(name) {
		c.add("%s: name %q breaks Discord's naming rule", where, name)
	}
	if strings.ToLower(name) != name {
		c.add("%s: name %q is not lower case", where, name)
	}
}

// options checks a command's options at a depth (0 for the command's
// own, 1 under a subcommand or group, 2 under a group's subcommand) and
// returns the characters they count towards the command's 4000.
func (c *checks) options(where string, options []wireOption, depth int) int {
	if len(options) > 25 {
		c.add("%s has %d options, want at most 25", where, len(options))
	}
	total := 0
	names := map[string]bool{}
	optional := false
	subcommands := 0
	for _, o := range options {
		at := where + " " + o.Name
		c.name(at, o.Name)
		if names[o.Name] {
			c.add("%s: option name used twice", at)
		}
		names[o.Name] = true
		c.length(at+" description", o.Description, 1, 100)
		total += utf8.RuneCountInString(o.Name) + utf8.RuneCountInString(o.Description)
		switch {
		case o.Type == optionSubcommand || o.Type == optionSubcommandGroup:
			subcommands++
			if o.Required {
				c.add("%s: a subcommand cannot be required", at)
			}
			if o.Type == optionSubcommandGroup && depth > 0 || o.Type == optionSubcommand && depth > 1 {
				c.add("%s: subcommand of type %d nested too deep", at, o.Type)
			}
			if o.Type == optionSubcommandGroup {
				for _, sub := range o.Options {
					if sub.Type != optionSubcommand {
						c.add("%s: a group holds only subcommands, not type %d", at, sub.Type)
					}
				}
			}
			total += c.options(at, o.Options, depth+1)
			continue
		case o.Type < optionString || o.Type > optionAttachment:
			c.add("%s has option type %d, which is none of Discord's", at, o.Type)
		}
		if o.Required && optional {
			c.add("%s is required after an optional option", at)
		}
		optional = optional || !o.Required
		if len(o.Options) > 0 {
			c.add("%s: only subcommands and groups have options", at)
		}
		if len(o.Choices) > 25 {
			c.add("%s has %d choices, want at most 25", at, len(o.Choices))
		}
		if len(o.Choices) > 0 && o.Autocomplete {
			c.add("%s has choices and autocomplete", at)
		}
		for _, choice := range o.Choices {
			c.length(at+" choice name", choice.Name, 1, 100)
			total += utf8.RuneCountInString(choice.Name)
			value, isString := choice.Value.(string)
			if o.Type == optionString != isString {
				c.add("%s choice %q has a value of the wrong type", at, choice.Name)
			}
			c.length(at+" choice value", value, 0, 100)
			total += utf8.RuneCountInString(value)
		}
		if o.Type != optionString && (o.MinLength != nil || o.MaxLength != nil) {
			c.add("%s: only string options have lengths", at)
		}
		if o.MinLength != nil && (*o.MinLength < 0 || *o.MinLength > 6000) {
			c.add("%s min_length %d, want 0 to 6000", at, *o.MinLength)
		}
		if o.MaxLength != nil && (*o.MaxLength < 1 || *o.MaxLength > 6000) {
			c.add("%s max_length %d, want 1 to 6000", at, *o.MaxLength)
		}
	}
	if subcommands > 0 && subcommands != len(options) {
		c.add("%s mixes subcommands with other options", where)
	}
	return total
}

func (c *checks) membersQuery(query url.Values) {
	for name := range query {
		if name != "limit" && name != "after" {
			c.add("unknown query parameter %q", name)
		}
	}
	if limit := query.Get("limit"); limit != "" {
		if n, err := strconv.Atoi(limit); err != nil || n < 1 || n > 1000 {
			c.add("limit %q, want 1 to 1000", limit)
		}
	}
	if after, ok := query["after"]; ok {
		c.snowflake("after", after[0])
	}
}

// wireMessage is a message (or interaction response) as the bot sends
// it.
type wireMessage struct {
	Content         *string         `json:"content"`
	Embeds          []wireEmbed     `json:"embeds"`
	Components      []wireComponent `json:"components"`
	AllowedMentions *wireMentions   `json:"allowed_mentions"`
	Flags           *int            `json:"flags"`
	Title           *string         `json:"title"`
	CustomID        *string         `json:"custom_id"`
}

type wireEmbed struct {
	Title       string `json:"title"`
	Description string `json:"description"`
	Color       *int   `json:"color"`
	Timestamp   string `json:"timestamp"`
	Fields      []struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"fields"`
	Footer *struct {
		Text string `json:"text"`
	} `json:"footer"`
	Author *struct {
		Name string `json:"name"`
	} `json:"author"`
}

type wireMentions struct {
	Parse []string `json:"parse"`
	Users []string `json:"users"`
	Roles []string `json:"roles"`
}

type wireComponent struct {
	Type       int             `json:"type"`
	CustomID   *string         `json:"custom_id"`
	Label      *string         `json:"label"`
	Style      int             `json:"style"`
	URL        string          `json:"url"`
	Required   *bool           `json:"required"`
	MinLength  *int            `json:"min_length"`
	MaxLength  *int            `json:"max_length"`
	Value      string          `json:"value"`
	Components []wireComponent `json:"components"`
}

// Component types.
const (
	componentActionRow = 1
	componentButton    = 2
	componentTextInput = 4
)

// message checks a message's content, embeds, components and mentions;
// a new message must say something.
func (c *checks) message(where string, m wireMessage, isNew bool) {
	content := ""
	if m.Content != nil {
		content = *m.Content
	}
	c.length(where+"content", content, 0, 2000)
	if isNew && strings.TrimSpace(content) == "" && len(m.Embeds) == 0 && len(m.Components) == 0 {
		c.add("%sthe message is empty", where)
	}
	if len(m.Embeds) > 10 {
		c.add("%s%d embeds, want at most 10", where, len(m.Embeds))
	}
	total := 0
	for i, e := range m.Embeds {
		at := fmt.Sprintf("%sembed %d ", where, i)
		c.length(at+"title", e.Title, 0, 256)
		c.length(at+"description", e.Description, 0, 4096)
		total += utf8.RuneCountInString(e.Title) + utf8.RuneCountInString(e.Description)
		if e.Color != nil && (*e.Color < 0 || *e.Color > 0xffffff) {
			c.add("%scolor %d", at, *e.Color)
		}
		if len(e.Fields) > 25 {
			c.add("%s%d fields, want at most 25", at, len(e.Fields))
		}
		for j, f := range e.Fields {
			c.length(fmt.Sprintf("%sfield %d name", at, j), f.Name, 1, 256)
			c.length(fmt.Sprintf("%sfield %d value", at, j), f.Value, 1, 1024)
			total += utf8.RuneCountInString(f.Name) + utf8.RuneCountInString(f.Value)
		}
		if e.Footer != nil {
			c.length(at+"footer", e.Footer.Text, 0, 2048)
			total += utf8.RuneCountInString(e.Footer.Text)
		}
		if e.Author != nil {
			c.length(at+"author", e.Author.Name, 0, 256)
			total += utf8.RuneCountInString(e.Author.Name)
		}
		if e.Title == "" && e.Description == "" && len(e.Fields) == 0 && e.Footer == nil && e.Author == nil {
			c.add("%sis empty", at)
		}
	}
	if total > 6000 {
		c.add("%sembeds are %d characters together, want at most 6000", where, total)
	}
	c.messageComponents(where, m.Components)
	if a := m.AllowedMentions; a != nil {
		for _, kind := range a.Parse {
			if kind != "users" && kind != "roles" && kind != "everyone" {
				c.add("%sallowed_mentions parse %q", where, kind)
			}
			if kind == "users" && len(a.Users) > 0 || kind == "roles" && len(a.Roles) > 0 {
				c.add("%sallowed_mentions parses %s and lists them too", where, kind)
			}
		}
		if len(a.Users) > 100 || len(a.Roles) > 100 {
			c.add("%sallowed_mentions lists more than 100", where)
		}
		for _, id := range append(append([]string{}, a.Users...), a.Roles...) {
			c.snowflake(where+"allowed_mentions id", id)
		}
	}
}

// messageComponents checks a message's rows of buttons.
func (c *checks) messageComponents(where string, rows []wireComponent) {
	if len(rows) > 5 {
		c.add("%s%d component rows, want at most 5", where, len(rows))
	}
	for _, row := range rows {
		if row.Type != componentActionRow {
			c.add("%stop-level component of type %d, want action rows (1)", where, row.Type)
			continue
		}
		if len(row.Components) < 1 || len(row.Components) > 5 {
			c.add("%saction row of %d components, want 1 to 5", where, len(row.Components))
		}
		for _, button := range row.Components {
			if button.Type != componentButton {
				c.add("%scomponent of type %d in a message row", where, button.Type)
				continue
			}
			if button.Style < 1 || button.Style > 6 {
				c.add("%sbutton style %d", where, button.Style)
			}
			if button.Label != nil {
				c.length(where+"button label", *button.Label, 0, 80)
			}
			switch {
			case button.Style == 5 && (button.URL == "" || button.CustomID != nil):
				c.add("%sa link button takes a url and no custom_id", where)
			case button.Style != 5 && button.Style != 6 && button.CustomID == nil:
				c.add("%sbutton without custom_id", where)
			case button.CustomID != nil:
				c.length(where+"button custom_id", *button.CustomID, 1, 100)
			}
		}
	}
}

// Interaction callback types.
const (
	callbackMessage         = 4
	callbackDeferredMessage = 5
	callbackDeferredUpdate  = 6
	callbackUpdate          = 7
	callbackModal           = 9
)

// interactionCallback checks an interaction response: its type, and the
// data that type takes.
func (c *checks) interactionCallback(kind int, raw json.RawMessage) {
	var data wireMessage
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &data); err != nil {
			c.add("data is not the JSON expected: %v", err)
			return
		}
	}
	flags := 0
	if data.Flags != nil {
		flags = *data.Flags
	}
	switch kind {
	case callbackMessage, callbackDeferredMessage, callbackUpdate:
		if flags&^int(discordgo.MessageFlagsEphemeral|discordgo.MessageFlagsSuppressEmbeds) != 0 {
			c.add("flags %d: an interaction response takes only ephemeral (64) and suppress embeds (4)", flags)
		}
		if kind != callbackDeferredMessage {
			c.message("data ", data, kind == callbackMessage)
		}
	case callbackDeferredUpdate:
		if flags != 0 {
			c.add("a deferred update takes no flags")
		}
	case callbackModal:
		c.modal(data)
	default:
		c.add("callback type %d is none the bot should send", kind)
	}
}

// modal checks a form: its id, title, and rows of one text input each.
func (c *checks) modal(data wireMessage) {
	if data.CustomID == nil || data.Title == nil {
		c.add("a modal needs custom_id and title")
		return
	}
	c.length("modal custom_id", *data.CustomID, 1, 100)
	c.length("modal title", *data.Title, 1, 45)
	if len(data.Components) < 1 || len(data.Components) > 5 {
		c.add("modal of %d rows, want 1 to 5", len(data.Components))
	}
	for _, row := range data.Components {
		if row.Type != componentActionRow || len(row.Components) != 1 || row.Components[0].Type != componentTextInput {
			c.add("a modal row holds exactly one text input")
			continue
		}
		input := row.Components[0]
		if input.CustomID == nil || input.Label == nil {
			c.add("a text input needs custom_id and label")
			continue
		}
		c.length("text input custom_id", *input.CustomID, 1, 100)
		c.length("text input label", *input.Label, 1, 45)
		if input.Style != 1 && input.Style != 2 {
			c.add("text input style %d, want 1 (short) or 2 (paragraph)", input.Style)
		}
		least, most := 0, 4000
		if input.MinLength != nil {
			least = *input.MinLength
		}
		if input.MaxLength != nil {
			most = *input.MaxLength
		}
		if least < 0 || least > 4000 || most < 1 || most > 4000 || least > most {
			c.add("text input lengths %d to %d, want within 0 to 4000, min at most max", least, most)
		}
		c.length("text input value", input.Value, 0, most)
	}
}
