package discordtest

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
)

// messageBody is a message (or interaction response) as the bot sends
// it.
type messageBody struct {
	Content         *string         `json:"content"`
	Embeds          []embedBody     `json:"embeds"`
	Components      []componentBody `json:"components"`
	AllowedMentions *mentionsBody   `json:"allowed_mentions"`
	Flags           *int            `json:"flags"`
	Title           *string         `json:"title"`
	CustomID        *string         `json:"custom_id"`
}

type embedBody struct {
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

type mentionsBody struct {
	Parse []string `json:"parse"`
	Users []string `json:"users"`
	Roles []string `json:"roles"`
}

type componentBody struct {
	Type       int             `json:"type"`
	CustomID   *string         `json:"custom_id"`
	Label      *string         `json:"label"`
	Style      int             `json:"style"`
	URL        string          `json:"url"`
	Required   *bool           `json:"required"`
	MinLength  *int            `json:"min_length"`
	MaxLength  *int            `json:"max_length"`
	Value      string          `json:"value"`
	Components []componentBody `json:"components"`
}

// Component types.
const (
	componentActionRow = 1
	componentButton    = 2
	componentTextInput = 4
)

// message checks a message's content, embeds, components and mentions;
// a new message must say something.
func (c *checks) message(where string, m messageBody, isNew bool) {
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
			// Discord trims a field's name and value before it requires them.
			if strings.TrimSpace(f.Name) == "" || strings.TrimSpace(f.Value) == "" {
				c.add("%sfield %d has a blank name or value", at, j)
			}
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
func (c *checks) messageComponents(where string, rows []componentBody) {
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
	var data messageBody
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
func (c *checks) modal(data messageBody) {
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
