package discordtest

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// commandBody is an application command as the bot sends it.
type commandBody struct {
	Type                     *int            `json:"type"`
	Name                     string          `json:"name"`
	Description              string          `json:"description"`
	Options                  []optionBody    `json:"options"`
	DefaultMemberPermissions json.RawMessage `json:"default_member_permissions"`
	DMPermission             *bool           `json:"dm_permission"`
	Contexts                 []int           `json:"contexts"`
}

type optionBody struct {
	Type         int          `json:"type"`
	Name         string       `json:"name"`
	Description  string       `json:"description"`
	Required     bool         `json:"required"`
	Options      []optionBody `json:"options"`
	Choices      []choiceBody `json:"choices"`
	Autocomplete bool         `json:"autocomplete"`
	MinLength    *int         `json:"min_length"`
	MaxLength    *int         `json:"max_length"`
}

type choiceBody struct {
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

func (c *checks) commands(commands []commandBody) {
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
func (c *checks) options(where string, options []optionBody, depth int) int {
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
