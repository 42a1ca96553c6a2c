package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"text/tabwriter"
	"time"

	"github.com/crownsdev/crowns/api"
	"github.com/crownsdev/crowns/models"
)

// writeKeyStats writes a key's usage for crowns keys stats: the body of
// GET /auth/stats with asJSON, else a table of days and one of routes,
// under a line naming the key, and saying so when it is not the
// developer's current key (info) but their latest (revoked or
// blacklisted); with asJSON, that is said on log instead, as a warning.
func writeKeyStats(out io.Writer, log *slog.Logger, report models.KeyUsageReport, info models.DeveloperInfo, asJSON bool) error {
	standing := keyStanding(report, info)
	if asJSON {
		if standing != "" {
			log.Warn("the key shown is no longer in use", "keyId", report.KeyID, "why", standing)
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(api.NewKeyStats(report))
	}
	last := "never"
	if report.LastUsedAt != nil {
		last = report.LastUsedAt.UTC().Format(time.RFC3339)
	}
	if standing != "" {
		standing = " (no longer in use: " + standing + ")"
	}
	fmt.Fprintf(out, "key %d%s, created %s, last request %s\n\n", report.KeyID, standing, report.KeyCreatedAt.UTC().Format(time.RFC3339), last)
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "DAY (UTC)\tREQUESTS\tRATE-LIMITED\t4XX\t5XX\t")
	for _, d := range report.Days {
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t\n", d.Day.Format("2006-01-02"), d.Requests, d.RateLimited, d.ClientErrors, d.ServerErrors)
	}
	total := report.Total()
	fmt.Fprintf(w, "total\t%d\t%d\t%d\t%d\t\n", total.Requests, total.RateLimited, total.ClientErrors, total.ServerErrors)
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(out)
	w = tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ROUTE\tREQUESTS")
	for _, route := range report.RoutesByUse() {
		fmt.Fprintf(w, "%s\t%d\n", route, report.Routes[route])
	}
	return w.Flush()
}

// keyStanding says why the key of report is not the developer's current
// key (info), or "" when it is.
func keyStanding(report models.KeyUsageReport, info models.DeveloperInfo) string {
	switch {
	case report.KeyID == info.CurrentKeyID:
		return ""
	case info.State == models.DeveloperBlacklisted:
		return "its developer is blacklisted"
	default:
		// Revoked, or blacklisted before its developer was
		// unblacklisted: the key's own state is not in the report.
		return "its developer has no current key"
	}
}
