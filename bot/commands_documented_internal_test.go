package bot

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
)

// documentedSlashCommand is a slash command as the first cell of a table
// of docs/discord.md writes it: `/keyadmin revoke user [reason]`.
var documentedSlashCommand = regexp.MustCompile("^\\| `(/[^`]+)`")

// usageLine is how docs/discord.md writes a subcommand of definition:
// "/command subcommand" and each option in order, by its name or, with
// fixed choices, by them joined with "|"; in brackets when optional.
func usageLine(command *discordgo.ApplicationCommand, sub *discordgo.ApplicationCommandOption) string {
	words := []string{"/" + command.Name, sub.Name}
	for _, option := range sub.Options {
		word := option.Name
		if len(option.Choices) > 0 {
			choices := make([]string, len(option.Choices))
			for i, choice := range option.Choices {
				choices[i] = choice.Name
			}
			word = strings.Join(choices, "|")
		}
		if !option.Required {
			word = "[" + word + "]"
		}
		words = append(words, word)
	}
	return strings.Join(words, " ")
}

// TestDiscordGuideDocumentsEverySlashCommand: the command tables of
// docs/discord.md write each slash command the bot registers, with its
// options in order (optional ones in brackets), and no command it does
// not register: a moderator typing what the guide shows finds that
// command, with those options.
func TestDiscordGuideDocumentsEverySlashCommand(t *testing.T) {
	text, err := os.ReadFile("../docs/discord.md")
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	for _, line := range strings.Split(string(text), "\n") {
		if match := documentedSlashCommand.FindStringSubmatch(line); match != nil {
			documented = append(documented, strings.ReplaceAll(match[1], `\|`, "|"))
		}
	}
	var registered []string
	for _, command := range commandDefinitions() {
		for _, sub := range command.Options {
			if sub.Type != discordgo.ApplicationCommandOptionSubCommand {
				t.Fatalf("/%s has the option %s, not a subcommand: usageLine cannot write it", command.Name, sub.Name)
			}
			registered = append(registered, usageLine(command, sub))
		}
	}
	if len(registered) == 0 {
		t.Fatal("the bot registers no slash command")
	}
	for _, usage := range registered {
		if !slices.Contains(documented, usage) {
			t.Errorf("docs/discord.md does not document %q, which the bot registers", usage)
		}
	}
	for _, usage := range documented {
		if !slices.Contains(registered, usage) {
			t.Errorf("docs/discord.md documents %q, which the bot does not register", usage)
		}
	}
}
