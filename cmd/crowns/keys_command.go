package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
)

// cliActor is who the key events of this command are recorded as.
const cliActor = "cli"

const keysUsageText = `Usage: crowns keys <action> [flags]

  issue --discord-user ID [--name NAME]       print the developer's key (creating or re-enabling it)
  regenerate --discord-user ID [--name NAME]  print a new key; the old one stops working at once
  disable --discord-user ID [--reason TEXT]   disable the key (owner left the community server)
  revoke --discord-user ID [--reason TEXT]    withdraw the key; the developer may ask for a new one
  blacklist --discord-user ID [--reason TEXT] forbid the developer keys; the current key gets 403
  unblacklist --discord-user ID               let the developer ask for a (new) key again
  list                                        table of developers: user, name, state, key created, last used
  show --discord-user ID                      one developer: state, times, blacklist details, key counts
  stats --discord-user ID [--json]            the current key's usage over the last 30 UTC days
                                              (without one, the latest key's, said so)
                                              (--json: the body GET /auth/stats answers)

issue and regenerate print the key alone on stdout (KEY=$(crowns keys issue --discord-user 1));
the other changes print a one-line confirmation on stdout. Logs go to stderr. Keys are never
shown by list or show.
Exit status: 0 done, 1 refused or failed, 2 bad arguments or configuration.
`

// keysRequest is a parsed crowns keys command line.
type keysRequest struct {
	action        string
	discordUserID string
	name          string
	reason        string
	json          bool
}

// keysFlags says which flags an action takes: a Discord user (always
// required when taken), a name, a reason.
type keysFlags struct {
	user, name, reason, json bool
}

func flagsOf(action string) (keysFlags, bool) {
	switch action {
	case "issue", "regenerate":
		return keysFlags{user: true, name: true}, true
	case "disable", "revoke", "blacklist":
		return keysFlags{user: true, reason: true}, true
	case "unblacklist", "show":
		return keysFlags{user: true}, true
	case "list":
		return keysFlags{}, true
	case "stats":
		return keysFlags{user: true, json: true}, true
	}
	return keysFlags{}, false
}

// parseKeysArgs reads the action and its flags; its errors are one line.
func parseKeysArgs(args []string) (keysRequest, error) {
	if len(args) == 0 {
		return keysRequest{}, errors.New("an action is required: issue, regenerate, disable, revoke, blacklist, unblacklist, list, show or stats")
	}
	if err := checkAction(args[0]); err != nil {
		return keysRequest{}, err
	}
	action := args[0]
	allowed, ok := flagsOf(action)
	if !ok {
		return keysRequest{}, fmt.Errorf("unknown action %q", action)
	}
	if len(args) > 1 && isHelpRequest(args[1]) {
		// crowns keys ACTION help, as crowns CMD help and crowns clans
		// ACTION help ask.
		return keysRequest{}, flag.ErrHelp
	}
	req, err := parseKeysFlags(keysRequest{action: action}, allowed, args[1:])
	if err != nil {
		return keysRequest{}, actionError{action: action, err: err}
	}
	return req, nil
}

// parseKeysFlags reads the flags of req's action, those allowed.
func parseKeysFlags(req keysRequest, allowed keysFlags, args []string) (keysRequest, error) {
	fs := flag.NewFlagSet("crowns keys "+req.action, flag.ContinueOnError)
	if allowed.user {
		fs.StringVar(&req.discordUserID, "discord-user", "", "Discord user id")
	}
	if allowed.name {
		fs.StringVar(&req.name, "name", "", "display name")
	}
	if allowed.reason {
		fs.StringVar(&req.reason, "reason", "", "why")
	}
	if allowed.json {
		fs.BoolVar(&req.json, "json", false, "print JSON")
	}
	if err := parseFlags(fs, args); err != nil {
		return req, err
	}
	if allowed.user {
		if req.discordUserID == "" {
			return keysRequest{}, errors.New("--discord-user is required")
		}
		// The form any stored developer has; a developer the action would
		// record is held to keys.CheckDiscordUserID by the service.
		if err := keys.CheckStoredDiscordUserID(req.discordUserID); err != nil {
			return keysRequest{}, fmt.Errorf("--discord-user: %w", err)
		}
	}
	req.name = strings.TrimSpace(req.name)
	if err := keys.CheckDisplayName(req.name); err != nil {
		return keysRequest{}, fmt.Errorf("--name: %w", err)
	}
	req.reason = strings.TrimSpace(req.reason)
	if err := keys.CheckReason(req.reason); err != nil {
		return keysRequest{}, fmt.Errorf("--reason: %w", err)
	}
	return req, nil
}

// runKeys manages developer keys from the command line.
func runKeys(ctx context.Context, env cli, args []string) int {
	req, code, done := parseCommand(env, "crowns keys", keysUsageText, args, parseKeysArgs)
	if done {
		return code
	}
	_, log, db, secret, code := openCommandDatabase(ctx, env, "crowns keys "+req.action)
	if code != exitOK {
		return code
	}
	defer func() { _ = db.Close() }()
	service, err := newKeyService(secret, db, log, env.clock)
	if err != nil {
		commandFailed(env, "crowns keys "+req.action, err.Error())
		return exitFailure
	}
	if err := performKeys(ctx, service, req, env.stdout, log); err != nil {
		commandFailed(env, "crowns keys "+req.action, keysFailure(err, req))
		if errors.Is(err, models.ErrInvalid) {
			return exitUsage
		}
		return exitFailure
	}
	return exitOK
}

// performKeys runs the parsed action and writes its result to out, and
// what the operator should know beside it to log.
func performKeys(ctx context.Context, service *keys.Service, req keysRequest, out io.Writer, log *slog.Logger) error {
	dev := keys.Developer{DiscordUserID: req.discordUserID, DisplayName: req.name}
	var err error
	switch req.action {
	case "issue", "regenerate":
		var issued keys.Issued
		if req.action == "issue" {
			issued, err = service.IssueOrRemind(ctx, dev, cliActor)
		} else {
			issued, err = service.Regenerate(ctx, dev, cliActor)
		}
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(out, issued.Key)
		return err
	case "list":
		infos, err := service.List(ctx)
		if err != nil {
			return err
		}
		return writeDeveloperTable(out, infos)
	case "show":
		info, err := service.Info(ctx, req.discordUserID)
		if err != nil {
			return err
		}
		return writeDeveloper(out, info)
	case "stats":
		report, err := service.DeveloperUsage(ctx, req.discordUserID, keys.UsageDays)
		if err != nil {
			return err
		}
		info, err := service.Info(ctx, req.discordUserID)
		if err != nil {
			return err
		}
		return writeKeyStats(out, log, report, info, req.json)
	case "disable":
		err = service.Disable(ctx, req.discordUserID, cliActor, req.reason)
	case "revoke":
		err = service.Revoke(ctx, req.discordUserID, cliActor, req.reason)
	case "blacklist":
		err = service.Blacklist(ctx, req.discordUserID, req.reason, cliActor)
	case "unblacklist":
		err = service.Unblacklist(ctx, req.discordUserID, cliActor)
	}
	if err != nil {
		return err
	}
	info, err := service.Info(ctx, req.discordUserID)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "%s: developer %s is now %s\n", req.action, info.DiscordUserID, statePhrase(info.State))
	return err
}

// keysFailure words an error for the operator, on one line.
func keysFailure(err error, req keysRequest) string {
	switch {
	case req.action == "blacklist" && errors.Is(err, models.ErrDeveloperBlacklisted):
		return fmt.Sprintf("developer %s was already blacklisted: nothing changed (crowns keys show %s gives the reason)", req.discordUserID, req.discordUserID)
	case req.action == "revoke" && errors.Is(err, models.ErrDeveloperBlacklisted):
		return fmt.Sprintf("developer %s is blacklisted: their key is refused already, nothing revoked", req.discordUserID)
	case errors.Is(err, models.ErrDeveloperBlacklisted):
		return fmt.Sprintf("developer %s is blacklisted: no key issued (crowns keys unblacklist lifts it)", req.discordUserID)
	case errors.Is(err, keys.ErrNoKeyToRevoke):
		return fmt.Sprintf("developer %s has no key in use: nothing revoked", req.discordUserID)
	case errors.Is(err, keys.ErrNotBlacklisted):
		return fmt.Sprintf("developer %s is not blacklisted: nothing changed", req.discordUserID)
	case errors.Is(err, keys.ErrNeverHadKey):
		return fmt.Sprintf("developer %s has never had a key: no usage to show", req.discordUserID)
	case errors.Is(err, models.ErrNotFound):
		return fmt.Sprintf("no developer with Discord user id %s", req.discordUserID)
	}
	return strings.ReplaceAll(err.Error(), "\n", " ")
}

func statePhrase(state models.DeveloperState) string {
	if state == models.DeveloperWithoutKey {
		return "without a key"
	}
	return string(state)
}

// writeDeveloperTable writes the list table.
func writeDeveloperTable(out io.Writer, infos []keys.DeveloperInfo) error {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "DISCORD USER\tNAME\tSTATE\tKEY CREATED\tLAST USED")
	for _, info := range infos {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", info.DiscordUserID, orDash(info.DisplayName), info.State,
			timeOr(info.KeyCreatedAt, "-"), timeOr(info.LastUsedAt, "never"))
	}
	return w.Flush()
}

// writeDeveloper writes the show details.
func writeDeveloper(out io.Writer, info keys.DeveloperInfo) error {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "discord user:\t%s\n", info.DiscordUserID)
	fmt.Fprintf(w, "name:\t%s\n", orDash(info.DisplayName))
	fmt.Fprintf(w, "state:\t%s\n", info.State)
	fmt.Fprintf(w, "first seen:\t%s\n", info.CreatedAt.UTC().Format(time.RFC3339))
	fmt.Fprintf(w, "key created:\t%s\n", timeOr(info.KeyCreatedAt, "-"))
	fmt.Fprintf(w, "last used:\t%s\n", timeOr(info.LastUsedAt, "never"))
	fmt.Fprintf(w, "keys:\t%s\n", keyCounts(info.KeyCounts))
	if info.State == models.DeveloperBlacklisted {
		fmt.Fprintf(w, "blacklisted:\tby %s at %s: %s\n", info.BlacklistedBy, timeOr(info.BlacklistedAt, "?"), orDash(info.BlacklistReason))
	}
	return w.Flush()
}

func keyCounts(counts map[models.KeyState]int) string {
	var parts []string
	for _, state := range models.KeyStates() {
		if n := counts[state]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, state))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func timeOr(t *time.Time, missing string) string {
	if t == nil {
		return missing
	}
	return t.UTC().Format(time.RFC3339)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
