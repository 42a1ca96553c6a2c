package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// command is one subcommand of crowns: its name, the line that lists it
// in crowns --help, its own usage (crowns NAME --help) and what runs it.
type command struct {
	name    string
	summary string
	// usage is the command's help text: a "Usage: crowns NAME ..." line,
	// a blank line, then what it does and its flags or actions.
	usage string
	run   func(ctx context.Context, env cli, args []string) int
}

// commands is every subcommand, in the order crowns --help lists them.
func commands() []command {
	return []command{
		{"serve", "run the roles selected by CROWNS_ROLES (the default command)", serveUsageText, runServe},
		{"keys", "manage developer keys", keysUsageText, runKeys},
		{"clans", "manage tracked clans", clansUsageText, runClans},
		{"sandbox", "serve the offline sandbox world under /v1", sandboxUsageText, runSandbox},
		{"migrate", "apply pending database migrations and exit", migrateUsageText, runMigrate},
		{"healthcheck", "ask the local server's /healthz; exit 0 when healthy", healthcheckUsageText, runHealthcheck},
		{"version", "print the release and the revision it was built from", versionUsageText, runVersion},
		{"help", "print this help, or a command's (crowns help CMD)", helpUsageText, runHelp},
	}
}

// findCommand is the subcommand called name.
func findCommand(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// usageText is crowns --help: what crowns is and its commands.
func usageText() string {
	var b strings.Builder
	b.WriteString(`Usage: crowns [command] [flags]

Crowns serves game statistics as a JSON API, with developer keys handed out by
a Discord bot. Without a command it runs serve. Configuration comes from
CROWNS_* environment variables (crowns serve --help lists them; see the README).

Commands:
`)
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %-12s %s\n", c.name, c.summary)
	}
	b.WriteString(`
Flags:
  -h, --help    print this help
  --version     print the release (as crowns version)

Run 'crowns help CMD' or 'crowns CMD --help' for a command's usage.
Exit status: 0 done, 1 failed, 2 bad arguments or configuration.
`)
	return b.String()
}

const helpUsageText = `Usage: crowns help [CMD]

Prints the list of commands, or the usage of CMD.

Exit status: 0 printed, 2 an unknown command or more than one.
`

// runHelp prints crowns --help, or the usage of the command named.
func runHelp(_ context.Context, env cli, args []string) int {
	switch len(args) {
	case 0:
		fmt.Fprint(env.stdout, usageText())
		return exitOK
	case 1:
		if isHelpRequest(args[0]) {
			fmt.Fprint(env.stdout, helpUsageText)
			return exitOK
		}
		c, ok := findCommand(args[0])
		if !ok {
			return usageError(env, "crowns help", fmt.Errorf("unknown command %q", args[0]), "crowns --help")
		}
		fmt.Fprint(env.stdout, c.usage)
		return exitOK
	default:
		return usageError(env, "crowns help", fmt.Errorf("takes one command name, got %d arguments", len(args)), "crowns --help")
	}
}

// isHelpRequest reports whether arg asks for usage.
func isHelpRequest(arg string) bool {
	return arg == "help" || arg == "-h" || arg == "--help" || arg == "-help"
}

// usageError writes the one line of a usage error, "<command>: <reason>
// (run '<hint>' for usage)", to stderr (see commandFailed) and returns
// exitUsage.
func usageError(env cli, command string, err error, hint string) int {
	commandFailed(env, command, fmt.Sprintf("%v (run '%s' for usage)", err, hint))
	return exitUsage
}

// commandFailed writes the line of a command that failed, "<command>:
// <reason>", to stderr: as text, or, when the log format is JSON
// (CROWNS_LOG_FORMAT=json), as one JSON record at ERROR level like the
// log's, so that a log pipeline reading the command's stderr can parse
// every line of it (the reason may span lines: a database's error).
func commandFailed(env cli, command, reason string) {
	if env.jsonLogs() {
		slog.New(slog.NewJSONHandler(env.stderr, nil)).Error(command+" failed", "command", command, "error", reason)
		return
	}
	fmt.Fprintf(env.stderr, "%s: %s\n", command, reason)
}

// jsonLogs tells whether the environment asks for JSON logs, read as the
// configuration reads CROWNS_LOG_FORMAT, before (or without) loading it.
func (env cli) jsonLogs() bool {
	return strings.EqualFold(strings.TrimSpace(env.getenv("CROWNS_LOG_FORMAT")), "json")
}

// parseCommand parses a command's arguments with parse. A request for
// usage (help, -h, --help first, or -h among the flags) prints usage to
// stdout; bad arguments print one line to stderr. done says the command
// has answered, with exit code code.
func parseCommand[R any](env cli, command, usage string, args []string, parse func([]string) (R, error)) (req R, code int, done bool) {
	if len(args) > 0 && isHelpRequest(args[0]) {
		fmt.Fprint(env.stdout, usage)
		return req, exitOK, true
	}
	req, err := parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(env.stdout, usage)
		return req, exitOK, true
	case err != nil:
		named := command
		var inAction actionError
		if errors.As(err, &inAction) {
			named += " " + inAction.action
		}
		return req, usageError(env, named, err, command+" --help"), true
	}
	return req, exitOK, false
}

// actionError is a problem with the arguments of one action of a command
// (issue, of crowns keys): its line names the action.
type actionError struct {
	action string
	err    error
}

func (e actionError) Error() string { return e.err.Error() }
func (e actionError) Unwrap() error { return e.err }

// checkAction refuses a flag where a command's action should come first.
func checkAction(action string) error {
	if strings.HasPrefix(action, "-") {
		return fmt.Errorf("the action comes first, before any flag; got %s", action)
	}
	return nil
}

// parseFlags parses args into fs, which takes flags only: a positional
// argument is an error. Its errors are one line.
func parseFlags(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		return flagError(err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// flagError words the flag package's errors as the rest of the commands
// do, a flag written with the two dashes of their usage: "unknown flag
// --x" rather than "flag provided but not defined: -x".
func flagError(err error) error {
	message := err.Error()
	if name, ok := strings.CutPrefix(message, "flag provided but not defined: -"); ok {
		return fmt.Errorf("unknown flag --%s", name)
	}
	if name, ok := strings.CutPrefix(message, "flag needs an argument: -"); ok {
		return fmt.Errorf("flag --%s needs a value", name)
	}
	// `invalid value "x" for flag -n: reason`, `invalid boolean value "x"
	// for -n: reason`: the last of either form, since the value may hold
	// the same words.
	at, infix := -1, ""
	for _, form := range []string{" for flag -", " for -"} {
		if i := strings.LastIndex(message, form); i > at {
			at, infix = i, form
		}
	}
	if at < 0 {
		return err
	}
	return fmt.Errorf("%s for --%s", message[:at], message[at+len(infix):])
}

// noArguments is the parse function of a command that takes no
// arguments and no flags.
func noArguments(name string) func([]string) (struct{}, error) {
	return func(args []string) (struct{}, error) {
		return struct{}{}, parseFlags(flag.NewFlagSet(name, flag.ContinueOnError), args)
	}
}
