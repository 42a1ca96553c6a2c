package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/scheduler"
)

const clansUsageText = `Usage: crowns clans <action> [arguments]

  track TAG           start tracking TAG without the description check (recorded as an operator override)
  untrack TAG         stop tracking TAG; its history is kept (and served again if it is tracked again)
  weekly TAG on|off   switch the Monday 23:00 UTC snapshots of a tracked clan
  list [--all]        table of tracked clans (--all: untracked ones too): tag, state, tracked since,
                      by whom, weekly, snapshot count, last slot, legible
  import TAG FILE [--weekly]
                      store the snapshots of a history answer (the JSON of GET /clan/TAG/history,
                      or of /history/weekly with --weekly, from Crowns or the legacy service;
                      FILE - reads standard input) for a clan tracked now or before; slots
                      already stored are kept

track fetches the clan from the configured upstream (the in-process sandbox when
CROWNS_UPSTREAM_TOKEN is unset) and stores it as the current 4-hourly slot's snapshot.
Exit status: 0 done, 1 refused or failed (unknown clan, upstream down), 2 bad arguments
or configuration.
`

// clansRequest is a parsed crowns clans command line.
type clansRequest struct {
	action string
	tag    string
	weekly bool
	all    bool
	// file is the history file of import.
	file string
}

// parseClansArgs reads the action and its arguments; its errors are one
// line.
func parseClansArgs(args []string) (clansRequest, error) {
	if len(args) == 0 {
		return clansRequest{}, errors.New("an action is required: track, untrack, weekly, list or import")
	}
	if err := checkAction(args[0]); err != nil {
		return clansRequest{}, err
	}
	req := clansRequest{action: args[0]}
	rest := args[1:]
	switch req.action {
	case "list":
		if len(rest) > 0 && isHelpRequest(rest[0]) {
			return clansRequest{}, flag.ErrHelp
		}
		fs := flag.NewFlagSet("crowns clans list", flag.ContinueOnError)
		fs.BoolVar(&req.all, "all", false, "include untracked clans")
		if err := parseFlags(fs, rest); err != nil {
			return clansRequest{}, actionError{action: req.action, err: err}
		}
		return req, nil
	case "import":
		if slices.ContainsFunc(rest, isHelpRequest) {
			return clansRequest{}, flag.ErrHelp
		}
		if err := parseImportArgs(&req, rest); err != nil {
			return clansRequest{}, actionError{action: req.action, err: err}
		}
		return req, nil
	case "track", "untrack", "weekly":
		// Positional arguments only: a request for help among them is
		// one (no clan tag reads "help").
		if slices.ContainsFunc(rest, isHelpRequest) {
			return clansRequest{}, flag.ErrHelp
		}
	default:
		return clansRequest{}, fmt.Errorf("unknown action %q", req.action)
	}
	req, err := parseClansAction(req, rest)
	if err != nil {
		return clansRequest{}, actionError{action: req.action, err: err}
	}
	return req, nil
}

// parseClansAction reads the arguments of an action on one clan (req's):
// its tag, and for weekly on or off.
func parseClansAction(req clansRequest, rest []string) (clansRequest, error) {
	for _, arg := range rest {
		if strings.HasPrefix(arg, "-") {
			// These actions take no flags; a tag never starts with one.
			return req, fmt.Errorf("unknown flag %s", arg)
		}
	}
	switch {
	case req.action != "weekly" && len(rest) != 1:
		return req, errors.New("takes one clan tag")
	case req.action != "weekly":
	case len(rest) != 2:
		return req, errors.New("takes a clan tag and on or off")
	case rest[1] == "on":
		req.weekly = true
	case rest[1] != "off":
		return req, fmt.Errorf("wants on or off after the tag, got %q", rest[1])
	}
	tag, err := models.NormalizeTag(rest[0])
	if err != nil {
		return req, err
	}
	req.tag = tag
	return req, nil
}

// parseImportArgs reads import's tag and file, then its flags.
func parseImportArgs(req *clansRequest, rest []string) error {
	if len(rest) < 2 || strings.HasPrefix(rest[0], "-") || strings.HasPrefix(rest[1], "-") && rest[1] != "-" {
		return errors.New("takes a clan tag and a history file, then --weekly if its snapshots are weekly")
	}
	tag, err := models.NormalizeTag(rest[0])
	if err != nil {
		return err
	}
	req.tag, req.file = tag, rest[1]
	fs := flag.NewFlagSet("crowns clans import", flag.ContinueOnError)
	fs.BoolVar(&req.weekly, "weekly", false, "the snapshots are weekly")
	return parseFlags(fs, rest[2:])
}

// runClans manages tracked clans from the command line.
func runClans(ctx context.Context, env cli, args []string) int {
	req, code, done := parseCommand(env, "crowns clans", clansUsageText, args, parseClansArgs)
	if done {
		return code
	}
	cfg, log, db, _, code := openCommandDatabase(ctx, env, "crowns clans "+req.action)
	if code != exitOK {
		return code
	}
	defer func() { _ = db.Close() }()
	var err error
	switch req.action {
	case "track":
		err = trackAsOperator(ctx, env, cfg, log, db, req.tag)
	case "untrack":
		err = untrackClan(ctx, env, db, req.tag)
	case "weekly":
		err = setWeekly(ctx, env, db, req.tag, req.weekly)
	case "list":
		err = listClans(ctx, env.stdout, db, req.all)
	case "import":
		err = importHistory(ctx, env, cfg, db, req)
	}
	if err != nil {
		log.Warn("clans command failed", "action", req.action, "clan", req.tag, "error", err)
		commandFailed(env, "crowns clans "+req.action, clansFailure(err, req))
		return exitFailure
	}
	return exitOK
}

// trackAsOperator fetches the clan from the configured upstream and
// tracks it without the description check.
func trackAsOperator(ctx context.Context, env cli, cfg config, log *slog.Logger, clans *store.Store, tag string) error {
	game, err := openGameSource(cfg, env.clock, log, nil)
	if err != nil {
		return err
	}
	defer func() { _ = game.stop(context.WithoutCancel(ctx)) }()
	tracker, err := scheduler.NewTracker(clans, game.client, scheduler.TrackerConfig{TrackAddress: cfg.TrackAddress, Clock: env.clock, Logger: log})
	if err != nil {
		return err
	}
	result, err := tracker.TrackAsOperator(ctx, tag)
	if err != nil {
		return err
	}
	if result.AlreadyTracked {
		_, err = fmt.Fprintf(env.stdout, "track: clan %s is already tracked (since %s, by %s)\n",
			tag, result.Clan.TrackedSince.Format(time.RFC3339), trackedBy(result.Clan))
		return err
	}
	address := "lacks"
	if result.Clan.Legible {
		address = "has"
	}
	// A clan tracked again within a slot it already has a snapshot of
	// (untracked, then tracked, in the same four hours) keeps that one.
	stored := "stored"
	if !result.SnapshotStored {
		stored = "already stored, kept"
	}
	_, err = fmt.Fprintf(env.stdout, "track: clan %s (%s) is now tracked by operator override; its description %s %q; snapshot of slot %s %s\n",
		tag, result.Clan.Name, address, cfg.TrackAddress, models.HistoryKey(models.SnapshotFourHourly.SlotAt(result.Clan.TrackedSince)), stored)
	return err
}

func untrackClan(ctx context.Context, env cli, clans *store.Store, tag string) error {
	changed, err := clans.Untrack(ctx, tag, env.clock.Now())
	if err != nil {
		return err
	}
	if !changed {
		_, err = fmt.Fprintf(env.stdout, "untrack: clan %s was not tracked; nothing changed\n", tag)
		return err
	}
	_, err = fmt.Fprintf(env.stdout, "untrack: clan %s is no longer tracked; its history is kept\n", tag)
	return err
}

func setWeekly(ctx context.Context, env cli, clans *store.Store, tag string, on bool) error {
	changed, err := clans.SetWeekly(ctx, tag, on)
	if err != nil {
		return err
	}
	state := onOff(on)
	if !changed {
		_, err = fmt.Fprintf(env.stdout, "weekly: collection for %s was already %s\n", tag, state)
		return err
	}
	_, err = fmt.Fprintf(env.stdout, "weekly: collection for %s is now %s\n", tag, state)
	return err
}

// listClans writes the table of tracked clans.
func listClans(ctx context.Context, out io.Writer, clans *store.Store, all bool) error {
	list, err := clans.ListTrackedClans(ctx, all)
	if err != nil {
		return err
	}
	if len(list) == 0 {
		_, err = fmt.Fprintln(out, "no tracked clans")
		return err
	}
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "TAG\tSTATE\tTRACKED SINCE\tBY\tWEEKLY\tSNAPSHOTS\tLAST SLOT\tLEGIBLE")
	for _, c := range list {
		state := "tracked"
		if !c.Active {
			state = "untracked"
		}
		lastSlot := "-"
		if c.LastSlot != nil {
			lastSlot = models.HistoryKey(*c.LastSlot)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", c.Tag, state, c.TrackedSince.Format(time.RFC3339),
			trackedBy(c.TrackedClan), onOff(c.Weekly), c.SnapshotCount, lastSlot, yesNo(c.Legible))
	}
	return w.Flush()
}

// trackedBy words who started tracking a clan.
func trackedBy(c models.TrackedClan) string {
	if c.TrackedBy == models.TrackedByKey && c.TrackedByKeyID != nil {
		return "key " + strconv.FormatInt(*c.TrackedByKeyID, 10)
	}
	return c.TrackedBy
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// clansFailure words an error for the operator, on one line.
func clansFailure(err error, req clansRequest) string {
	var unavailable *models.UnavailableError
	switch {
	case errors.Is(err, models.ErrNotTracked):
		return fmt.Sprintf("clan %s is not tracked (track it first: crowns clans track %s)", req.tag, req.tag)
	case errors.Is(err, models.ErrNotFound) && req.action == "track":
		return fmt.Sprintf("clan %s does not exist upstream", req.tag)
	case errors.Is(err, models.ErrNotFound) && req.action == "untrack":
		return fmt.Sprintf("clan %s is unknown: it was never tracked", req.tag)
	case errors.Is(err, models.ErrNotFound):
		return fmt.Sprintf("clan %s is unknown: it was never tracked (track it first: crowns clans track %s)", req.tag, req.tag)
	case errors.As(err, &unavailable):
		return fmt.Sprintf("the %s is unavailable; try again later", unavailable.Source)
	}
	return err.Error()
}
