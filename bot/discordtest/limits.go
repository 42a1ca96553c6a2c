package discordtest

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Check names the operation of Discord's API a request is (as Discord's
// OpenAPI description names it), and lists what in it Discord would
// refuse: its method and path, and in its body the counts, lengths and
// values Discord checks (as its API reference and OpenAPI description
// state them; lengths in characters). The fake answers a request with
// problems as Discord does, 400, and fails the test.
func Check(r Request) (operation string, problems []string) {
	var p checks
	segments := strings.Split(strings.Trim(r.Path, "/"), "/")
	is := func(method, pattern string) bool { return r.Method == method && pathMatches(pattern, r.Path) }
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
		var commands []commandBody
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
	case is("GET", "/channels/*"):
		p.snowflake("channel_id", segments[1])
		return "get_channel", p
	case is("POST", "/channels/*/messages"):
		var message messageBody
		if decode(&message) {
			p.message("", message, true)
		}
		return "create_message", p
	case is("DELETE", "/channels/*/messages/*"):
		p.snowflake("message_id", segments[3])
		return "delete_message", p
	case is("PATCH", "/webhooks/*/*/messages/@original"):
		p.snowflake("application_id", segments[1])
		var message messageBody
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
