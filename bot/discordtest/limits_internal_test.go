package discordtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/bwmarrin/discordgo"
)

// TestCheckRefusesWhatDiscordRefuses holds limits to Discord's, on both
// sides: the largest that passes and the smallest that does not.
func TestCheckRefusesWhatDiscordRefuses(t *testing.T) {
	post := func(body string) Request {
		return Request{Method: http.MethodPost, Path: "/channels/1/messages", Body: []byte(body)}
	}
	edit := func(body string) Request {
		return Request{Method: http.MethodPatch, Path: "/webhooks/2/token/messages/@original", Body: []byte(body)}
	}
	respond := func(body string) Request {
		return Request{Method: http.MethodPost, Path: "/interactions/3/token/callback", Body: []byte(body)}
	}
	register := func(body string) Request {
		return Request{Method: http.MethodPut, Path: "/applications/2/guilds/4/commands", Body: []byte(body)}
	}
	text := func(n int) string { return strings.Repeat("é", n) } // characters, not bytes
	content := func(n int) string { return fmt.Sprintf(`{"content":%q}`, text(n)) }
	embed := func(e string) string { return `{"embeds":[` + e + `]}` }
	field := func(name, value string) string { return fmt.Sprintf(`{"name":%q,"value":%q}`, name, value) }
	fields := func(n int) string {
		list := make([]string, n)
		for i := range list {
			list[i] = field("n", "v")
		}
		return embed(`{"fields":[` + strings.Join(list, ",") + `]}`)
	}
	button := func(label, customID string) string {
		return fmt.Sprintf(`{"components":[{"type":1,"components":[{"type":2,"style":4,"label":%q,"custom_id":%q}]}]}`, label, customID)
	}
	modal := func(title, label string, maxLength int) string {
		return fmt.Sprintf(`{"type":9,"data":{"custom_id":"form","title":%q,"components":[{"type":1,"components":[`+
			`{"type":4,"custom_id":"reason","style":1,"label":%q,"max_length":%d}]}]}}`, title, label, maxLength)
	}
	command := func(name, description, options string) string {
		return fmt.Sprintf(`[{"name":%q,"description":%q,"options":[%s]}]`, name, description, options)
	}
	stringOption := func(name string, required bool) string {
		return fmt.Sprintf(`{"type":3,"name":%q,"description":"d","required":%t}`, name, required)
	}
	choices := func(n int) string {
		list := make([]string, n)
		for i := range list {
			list[i] = fmt.Sprintf(`{"name":"c%d","value":"c%d"}`, i, i)
		}
		return `{"type":3,"name":"period","description":"d","choices":[` + strings.Join(list, ",") + `]}`
	}
	tests := []struct {
		name    string
		request Request
		refused bool
	}{
		{"content of 2000", post(content(2000)), false},
		{"content of 2001", post(content(2001)), true},
		{"edited content of 2001", edit(content(2001)), true},
		{"response content of 2001", respond(`{"type":4,"data":` + content(2001) + `}`), true},
		{"empty message", post(`{"content":"","embeds":null}`), true},
		{"deferral", respond(`{"type":5,"data":{"content":"","flags":64}}`), false},
		{"embed title of 256", post(embed(fmt.Sprintf(`{"title":%q}`, text(256)))), false},
		{"embed title of 257", post(embed(fmt.Sprintf(`{"title":%q}`, text(257)))), true},
		{"embed description of 4097", post(embed(fmt.Sprintf(`{"description":%q}`, text(4097)))), true},
		{"field name of 257", post(embed(`{"fields":[` + field(text(257), "v") + `]}`)), true},
		{"field value of 1024", post(embed(`{"fields":[` + field("n", text(1024)) + `]}`)), false},
		{"field value of 1025", post(embed(`{"fields":[` + field("n", text(1025)) + `]}`)), true},
		{"empty field value", post(embed(`{"fields":[` + field("n", "") + `]}`)), true},
		{"blank field value", post(embed(`{"fields":[` + field("n", " \u00a0") + `]}`)), true},
		{"field value of a zero-width space", post(embed(`{"fields":[` + field("n", "\u200b") + `]}`)), false},
		{"25 fields", post(fields(25)), false},
		{"26 fields", post(fields(26)), true},
		{"footer of 2049", post(embed(fmt.Sprintf(`{"footer":{"text":%q}}`, text(2049)))), true},
		{"embeds of 6001 in all", post(embed(fmt.Sprintf(`{"description":%q,"footer":{"text":%q}}`, text(4000), text(2001)))), true},
		{"button label of 80", post(button(text(80), "id")), false},
		{"button label of 81", post(button(text(81), "id")), true},
		{"custom id of 101", post(button("b", text(101))), true},
		{"allowed mentions parsing and listing users", post(`{"content":"x","allowed_mentions":{"parse":["users"],"users":["1"]}}`), true},
		{"modal", respond(modal(text(45), text(45), 4000)), false},
		{"modal title of 46", respond(modal(text(46), "l", 100)), true},
		{"text input label of 46", respond(modal("t", text(46), 100)), true},
		{"text input max_length of 4001", respond(modal("t", "l", 4001)), true},
		{"command", register(command("key", text(100), stringOption("reason", true)+","+stringOption("why", false))), false},
		{"command name in upper case", register(command("Key", "d", "")), true},
		{"command name of 33", register(command(strings.Repeat("k", 33), "d", "")), true},
		{"command description of 101", register(command("key", text(101), "")), true},
		{"empty command description", register(command("key", "", "")), true},
		{"required option after an optional one", register(command("key", "d", stringOption("why", false)+","+stringOption("reason", true))), true},
		{"25 choices", register(command("key", "d", choices(25))), false},
		{"26 choices", register(command("key", "d", choices(26))), true},
		{"no route of Discord's", Request{Method: http.MethodGet, Path: "/channels/1/messages/2/everything"}, true},
		{"a route without a body", Request{Method: http.MethodDelete, Path: "/channels/1/messages/2"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, problems := Check(tt.request)
			if refused := len(problems) > 0; refused != tt.refused {
				t.Errorf("refused %t (%q), want %t", refused, problems, tt.refused)
			}
		})
	}
}

// errorsOf stands for a test and keeps what the fake reports to it.
type errorsOf struct {
	testing.TB
	mu       sync.Mutex
	reported []string
}

func (e *errorsOf) Errorf(format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.reported = append(e.reported, fmt.Sprintf(format, args...))
}

// TestServerRefusesAndReportsAMessageOverTheLimit: a body Discord would
// refuse is answered 400 as Discord answers it, and fails the test that
// sent it.
func TestServerRefusesAndReportsAMessageOverTheLimit(t *testing.T) {
	sender := &errorsOf{TB: t}
	s := New(sender)
	body, _ := json.Marshal(map[string]string{"content": strings.Repeat("x", 2001)})
	response, err := s.Client().Post(discordgo.EndpointChannelMessages("1"), "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = response.Body.Close() }()
	var refusal invalidFormBody
	if err := json.NewDecoder(response.Body).Decode(&refusal); err != nil {
		t.Fatal(err)
	}
	if response.StatusCode != http.StatusBadRequest || refusal.Code != codeInvalidFormBody {
		t.Errorf("answered %d with code %d, want 400 with %d", response.StatusCode, refusal.Code, codeInvalidFormBody)
	}
	sender.mu.Lock()
	defer sender.mu.Unlock()
	if len(sender.reported) != 1 || !strings.Contains(sender.reported[0], "content is 2001 characters") {
		t.Errorf("reported %q, want the content's length", sender.reported)
	}
}
