package bot

import (
	"github.com/bwmarrin/discordgo"
	"github.com/prometheus/client_golang/prometheus"
)

// commandOutcome is how a command ended, the outcome label of the command
// metric.
type commandOutcome int

const (
	// commandOK: answered with what was asked (including a key
	// refusal the member must hear, such as a blacklisted developer).
	commandOK commandOutcome = iota
	// commandRefused: not allowed here or to this member, or unknown.
	commandRefused
	// commandError: the key service or the database failed.
	commandError
	// commandUnanswered: Discord did not take the answer.
	commandUnanswered
	commandOutcomeCount
)

func (o commandOutcome) String() string {
	switch o {
	case commandOK:
		return "ok"
	case commandRefused:
		return "refused"
	case commandError:
		return "error"
	}
	return "unanswered"
}

// commandUnknown is the command label of a command the bot does not
// define.
const commandUnknown = "unknown"

// commandHelp is the command label of the text command that lists the
// others.
const commandHelp = commandKey + " help"

// commandMetrics are the bot's Prometheus metrics, every label child
// bound at construction; nil records none.
type commandMetrics struct {
	// commands is by command name ("key get", "keyadmin revoke"...).
	commands   map[string]*[commandOutcomeCount]prometheus.Counter
	dmClosed   prometheus.Counter
	dmFailures prometheus.Counter
	// acknowledgementFailures counts interactions whose initial response
	// Discord did not take.
	acknowledgementFailures prometheus.Counter
}

// newCommandMetrics registers the bot's metrics with reg, one command
// label per subcommand of commandDefinitions; nil when reg is nil.
func newCommandMetrics(reg prometheus.Registerer) (*commandMetrics, error) {
	if reg == nil {
		return nil, nil
	}
	commands := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "crowns_bot_commands_total",
		Help: "Key-desk commands (slash, text and the regenerate and revoke confirmation buttons), by command (\"key get\", \"keyadmin revoke\"...) and outcome: ok, refused (wrong place, not a moderator, unknown), error (the key service failed), unanswered (Discord did not take the answer).",
	}, []string{"command", "outcome"})
	dm := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "crowns_bot_direct_message_failures_total",
		Help: "Keys that could not be sent by direct message, by reason: closed (the member accepts no direct messages), failed (Discord failed or timed out).",
	}, []string{"reason"})
	acknowledgementFailures := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "crowns_bot_acknowledgement_failures_total",
		Help: "Interactions (slash commands, buttons, forms) whose initial response Discord did not take within its three seconds, after the retries: the member saw \"The application did not respond\".",
	})
	for _, c := range []prometheus.Collector{commands, dm, acknowledgementFailures} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	m := &commandMetrics{
		commands:   map[string]*[commandOutcomeCount]prometheus.Counter{},
		dmClosed:   dm.WithLabelValues("closed"),
		dmFailures: dm.WithLabelValues("failed"),

		acknowledgementFailures: acknowledgementFailures,
	}
	names := []string{commandUnknown, commandHelp}
	for _, command := range commandDefinitions() {
		for _, sub := range command.Options {
			if sub.Type == discordgo.ApplicationCommandOptionSubCommand {
				names = append(names, command.Name+" "+sub.Name)
			}
		}
	}
	for _, name := range names {
		var counters [commandOutcomeCount]prometheus.Counter
		for o := range commandOutcomeCount {
			counters[o] = commands.WithLabelValues(name, o.String())
		}
		m.commands[name] = &counters
	}
	return m, nil
}

// command counts one command named name (unknown names count as
// "unknown") that ended with o.
func (m *commandMetrics) command(name string, o commandOutcome) {
	if m == nil {
		return
	}
	counters, ok := m.commands[name]
	if !ok {
		counters = m.commands[commandUnknown]
	}
	counters[o].Inc()
}

// directMessageFailed counts a key not sent by direct message.
func (m *commandMetrics) directMessageFailed(closed bool) {
	switch {
	case m == nil:
	case closed:
		m.dmClosed.Inc()
	default:
		m.dmFailures.Inc()
	}
}

// acknowledgementFailed counts an interaction whose initial response
// Discord did not take.
func (m *commandMetrics) acknowledgementFailed() {
	if m != nil {
		m.acknowledgementFailures.Inc()
	}
}

// slashCommandName is the command label of a slash command: its name and
// subcommand.
func slashCommandName(i *discordgo.Interaction) string {
	data := commandData(i)
	if len(data.Options) == 0 {
		return data.Name
	}
	return data.Name + " " + data.Options[0].Name
}

// textCommandName is the command label of a text command.
func textCommandName(command textCommand) string {
	switch command {
	case textCommandGet:
		return commandKey + " " + subGet
	case textCommandRegenerate:
		return commandKey + " " + subRegenerate
	case textCommandRevoke:
		return commandKey + " " + subRevoke
	}
	return commandHelp
}

// outcomeOf says how a command whose answer is a ended; answered tells
// whether Discord took the answer.
func (b *Bot) outcomeOf(a answer, answered bool) commandOutcome {
	switch {
	case !answered:
		return commandUnanswered
	case a.text == textTryAgainSoon, a.text == textSomethingWentWrong:
		return commandError
	case a.text == textOnlyInCommunityServer, a.text == textUnknownCommand, a.text == textModeratorsOnly,
		a.text == textUseKeyChannel(b.cfg.KeyChannelID, slashStyle()), a.text == textUseKeyChannel(b.cfg.KeyChannelID, b.textStyle()):
		return commandRefused
	}
	return commandOK
}
