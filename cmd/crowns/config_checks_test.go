package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/bot"
)

func TestConfigChecksTheListenAddress(t *testing.T) {
	const problem = "CROWNS_ADDR must be host:port with a port from 0 to 65535"
	tests := []struct {
		addr, problem string
	}{
		{"", ""}, // the default, :8080
		{":8080", ""},
		{"127.0.0.1:0", ""},
		{"[::1]:443", ""},
		{"crowns.internal:65535", ""},
		{"nonsense", problem},
		{":65536", problem},
		{":-1", problem},
		{"127.0.0.1:", problem},
		{":http", problem},
		{":+80", problem},
		{"1.2.3.4:80:90", problem},
		{"::1:80", problem},
		{"my host:80", problem},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			loadConfigExpecting(t, map[string]string{"CROWNS_ADDR": tt.addr}, tt.problem)
		})
	}
}

// TestConfigChecksTheDataDir: a CROWNS_DATA_DIR that is a file, or lies
// under one, is a configuration problem naming the variable (every
// command exits 2), not a failure to open the database; a directory not
// there yet is created at start, and PostgreSQL does not use the data dir.
func TestConfigChecksTheDataDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "crowns.conf")
	if err := os.WriteFile(file, []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A link to a disk not mounted: the directory cannot be created in
	// its place (mkdir says "file exists").
	dangling := filepath.Join(dir, "data-link")
	if err := os.Symlink(filepath.Join(dir, "unmounted", "crowns"), dangling); err != nil {
		t.Fatal(err)
	}
	linked := filepath.Join(dir, "linked")
	if err := os.Symlink(dir, linked); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, dataDir, databaseURL, problem string
	}{
		{"directory", dir, "", ""},
		{"not there yet", filepath.Join(dir, "new", "data"), "", ""},
		{"a file", file, "", "CROWNS_DATA_DIR " + strconv.Quote(file) + " is not a directory"},
		{"under a file", filepath.Join(file, "data"), "", "CROWNS_DATA_DIR " + strconv.Quote(filepath.Join(file, "data")) + " cannot be used"},
		{"a file, with PostgreSQL", file, "postgres://crowns@db/crowns", ""},
		{"a link to a directory", linked, "", ""},
		{"a link to nothing", dangling, "", "CROWNS_DATA_DIR " + strconv.Quote(dangling) + " is a symbolic link to " +
			strconv.Quote(filepath.Join(dir, "unmounted", "crowns")) + ", which does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"CROWNS_DATA_DIR": tt.dataDir, "CROWNS_DATABASE_URL": tt.databaseURL}
			if tt.databaseURL != "" {
				env["CROWNS_SECRET"] = testSecret
			}
			loadConfigExpecting(t, env, tt.problem)
		})
	}
	code, _, stderr := runCrowns(map[string]string{"CROWNS_DATA_DIR": file}, "keys", "list")
	if code != exitUsage || !strings.Contains(stderr, "CROWNS_DATA_DIR") {
		t.Fatalf("crowns keys list with CROWNS_DATA_DIR a file: exit %d, stderr\n%s\nwant exit %d naming CROWNS_DATA_DIR", code, stderr, exitUsage)
	}
}

func TestConfigRefusesAGameTokenInClear(t *testing.T) {
	const problem = "CROWNS_UPSTREAM_TOKEN would cross the network unencrypted"
	tests := []struct {
		url, token, problem string
	}{
		{"http://api.example.com/v1", "token", problem},
		{"http://10.0.0.5:8080/v1", "token", problem},
		{"http://127.0.0.2:1/v1", "token", ""},
		{"http://localhost:9000/v1", "token", ""},
		{"http://sandbox.localhost/v1", "token", ""},
		{"http://[::1]:9000/v1", "token", ""},
		{"https://api.example.com/v1", "token", ""},
		{"http://api.example.com/v1", "", ""}, // no token to leak
	}
	for _, tt := range tests {
		t.Run(tt.url+" "+tt.token, func(t *testing.T) {
			loadConfigExpecting(t, map[string]string{"CROWNS_UPSTREAM_URL": tt.url, "CROWNS_UPSTREAM_TOKEN": tt.token}, tt.problem)
		})
	}
}

func TestMaskDatabaseURLHidesEveryPassword(t *testing.T) {
	tests := []struct {
		raw, want string
	}{
		{"postgres://crowns:hunter2@db:5432/crowns?sslmode=disable", "postgres://crowns:xxxxx@db:5432/crowns?sslmode=disable"},
		{"postgres://crowns@db/crowns?sslmode=disable&password=hunter2", "postgres://crowns@db/crowns?password=xxxxx&sslmode=disable"},
		{"postgres://crowns@db/crowns?PASSWORD=hunter2", "postgres://crowns@db/crowns?PASSWORD=xxxxx"},
		{"postgres://crowns@db/crowns?sslpassword=hunter2&sslmode=verify-full", "postgres://crowns@db/crowns?sslmode=verify-full&sslpassword=xxxxx"},
		{"postgres://crowns@db/crowns?pass%77ord=hunter2", "postgres://crowns@db/crowns?password=xxxxx"},
		{"postgres://crowns@db/crowns?a=1;password=hunter2", "postgres://crowns@db/crowns?xxxxx"},
		{"postgresql://u:p%40ss@db/crowns?password=hunter2", "postgresql://u:xxxxx@db/crowns?password=xxxxx"},
		{"postgres://crowns@db/crowns", "postgres://crowns@db/crowns"},
		{"host=db user=crowns password=hunter2 dbname=crowns", "host=db user=crowns password=xxxxx dbname=crowns"},
		{"host=db password = 'hunter 2' dbname=crowns", "host=db password = xxxxx dbname=crowns"},
		{"host=db sslpassword=hunter2", "host=db sslpassword=xxxxx"},
		{"postgres://crowns:hunter2@db:5432/%zz", "(unparseable URL)"},
	}
	for _, tt := range tests {
		got := maskDatabaseURL(tt.raw)
		if got != tt.want {
			t.Errorf("maskDatabaseURL(%q) = %q, want %q", tt.raw, got, tt.want)
		}
		if strings.Contains(got, "hunter") {
			t.Errorf("maskDatabaseURL(%q) shows the password: %q", tt.raw, got)
		}
	}
}

func TestUnknownVariablesAreNamedWithTheClosestKnownName(t *testing.T) {
	environ := []string{
		"CROWNS_ADDR=:8080",
		"CROWNS_RATE_LIMT_BURST=5",
		"CROWNS_SECERT=abc",
		"crowns_addr=:1",
		"CROWNS_DISCORD_GUILD=1",
		"PATH=/bin",
		"CROWNS_TOURNAMENT_RETENTION=24h",
	}
	want := []unknownVariable{
		{"CROWNS_RATE_LIMT_BURST", "CROWNS_RATE_LIMIT_BURST"},
		{"CROWNS_SECERT", "CROWNS_SECRET"},
		{"CROWNS_DISCORD_GUILD", "CROWNS_DISCORD_GUILD_ID"},
	}
	got := unknownVariables(environ)
	if len(got) != len(want) {
		t.Fatalf("unknown variables %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("unknown variable %d = %v, want %v", i, got[i], want[i])
		}
	}
}

// TestEveryReadVariableIsKnown: the known names are those the
// configuration reads, all of them, including the conditional-looking
// ones.
func TestEveryReadVariableIsKnown(t *testing.T) {
	known := strings.Join(knownVariables(), " ")
	for _, name := range []string{"CROWNS_ADDR", "CROWNS_SECRET", "CROWNS_DATABASE_URL", "CROWNS_DISCORD_PREFIX", "CROWNS_TOURNAMENT_REFRESH_INTERVAL", "CROWNS_SNAPSHOT_CONCURRENCY"} {
		if !strings.Contains(" "+known+" ", " "+name+" ") {
			t.Errorf("%s is not among the known variables: %s", name, known)
		}
	}
}

// TestCommandsWarnOfUnknownVariables: a misspelled variable is one warning
// line naming it and the closest known name; the command still runs.
func TestCommandsWarnOfUnknownVariables(t *testing.T) {
	env := map[string]string{"CROWNS_DATA_DIR": t.TempDir(), "CROWNS_TRACK_ADRESS": "x.example"}
	var stdout, stderr bytes.Buffer
	if code := run(t.Context(), []string{"keys", "list"}, testCLI(&stdout, &stderr, env)); code != exitOK {
		t.Fatalf("keys list: exit %d:\n%s", code, stderr.String())
	}
	var warnings []string
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, "unknown configuration variable") {
			warnings = append(warnings, line)
		}
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "name=CROWNS_TRACK_ADRESS") || !strings.Contains(warnings[0], "closest=CROWNS_TRACK_ADDRESS") {
		t.Fatalf("warnings %q, want one naming CROWNS_TRACK_ADRESS and CROWNS_TRACK_ADDRESS:\n%s", warnings, stderr.String())
	}
}

// TestClosestNameOfAMisspelledStart: a misspelled start of a long name
// is pointed at that name, not at a short one fewer edits away in all.
func TestClosestNameOfAMisspelledStart(t *testing.T) {
	known := knownVariables()
	for name, want := range map[string]string{
		"CROWNS_RATE_LIMT":     "CROWNS_RATE_LIMIT_BURST",
		"CROWNS_TRACK_ADRESS":  "CROWNS_TRACK_ADDRESS",
		"crowns_database_url":  "CROWNS_DATABASE_URL",
		"CROWNS_DISCORD_TOKN":  "CROWNS_DISCORD_TOKEN",
		"CROWNS_SHUTDOWN_TIME": "CROWNS_SHUTDOWN_TIMEOUT",
	} {
		if got := closestName(name, known); got != want {
			t.Errorf("closest to %s: %s, want %s", name, got, want)
		}
	}
}

// TestConfigChecksTheLeakReportKeysFile: crowns serve reads and checks
// the file with the rest of its configuration (exit 2 at start-up,
// whatever the roles), not when the API starts; the operator commands,
// which may run where it is not mounted, do not read it.
func TestConfigChecksTheLeakReportKeysFile(t *testing.T) {
	dir := t.TempDir()
	notKeys := filepath.Join(dir, "not-keys.json")
	if err := os.WriteFile(notKeys, []byte(`{"public_keys": [{"key_identifier": "k", "key": "not a PEM key"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, env := range []map[string]string{
		{"CROWNS_LEAK_REPORT_KEYS_FILE": filepath.Join(dir, "missing.json")},
		{"CROWNS_LEAK_REPORT_KEYS_FILE": notKeys, "CROWNS_ROLES": "scheduler"},
	} {
		if _, err := loadServeConfig(func(name string) string { return env[name] }); err == nil || !strings.Contains(err.Error(), "CROWNS_LEAK_REPORT_KEYS_FILE:") {
			t.Errorf("serve's configuration with %v: %v, want the file's problem", env, err)
		}
		loadConfigExpecting(t, env, "")
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"serve"}, testCLI(&stdout, &stderr, map[string]string{
		"CROWNS_DATA_DIR": filepath.Join(dir, "data"), "CROWNS_LEAK_REPORT_KEYS_FILE": notKeys,
	}))
	if code != exitUsage || !strings.Contains(stderr.String(), "CROWNS_LEAK_REPORT_KEYS_FILE:") {
		t.Errorf("serve with a bad keys file: exit %d, stderr %q; want exit %d naming the variable", code, stderr.String(), exitUsage)
	}
	stdout.Reset()
	stderr.Reset()
	code = run(context.Background(), []string{"clans", "list"}, testCLI(&stdout, &stderr, map[string]string{
		"CROWNS_DATA_DIR": filepath.Join(dir, "data"), "CROWNS_LEAK_REPORT_KEYS_FILE": notKeys,
	}))
	if code != exitOK {
		t.Errorf("clans list with a keys file it does not use: exit %d, stderr %q", code, stderr.String())
	}
}

// TestTheUpstreamTimeoutBoundsEveryFetch: CROWNS_UPSTREAM_TIMEOUT bounds
// a tournament refresh's lookup and a snapshot's fetch as it bounds every
// upstream call, and must leave the jobs' leases room: one problem when
// it does not.
func TestTheUpstreamTimeoutBoundsEveryFetch(t *testing.T) {
	cfg, _ := loadConfigExpecting(t, map[string]string{"CROWNS_UPSTREAM_TIMEOUT": "90s"}, "")
	if cfg.UpstreamTimeout != 90*time.Second || cfg.TournamentRefresh.UpstreamTimeout != 90*time.Second || cfg.schedulerSettings().UpstreamTimeout != 90*time.Second {
		t.Fatalf("upstream timeout %s, tournament lookups bounded at %s, snapshot fetches at %s; want 1m30s for all",
			cfg.UpstreamTimeout, cfg.TournamentRefresh.UpstreamTimeout, cfg.schedulerSettings().UpstreamTimeout)
	}
	const problem = "CROWNS_UPSTREAM_TIMEOUT must be shorter than 2m0s"
	for _, timeout := range []string{"3m", "2m"} { // past the lease, and as long as it
		_, err := loadConfig(func(name string) string { return map[string]string{"CROWNS_UPSTREAM_TIMEOUT": timeout}[name] })
		if err == nil || !strings.Contains(err.Error(), problem) || strings.Count(err.Error(), "\n") > 1 || strings.Contains(err.Error(), "Lease") {
			t.Fatalf("CROWNS_UPSTREAM_TIMEOUT=%s: error %v; want the one problem %q", timeout, err, problem)
		}
	}
}

// TestLeakReportKeysMayComeFromTheEnvironment: CROWNS_LEAK_REPORT_KEYS
// holds the same JSON as the keys file, checked the same way; one of the
// two, not both.
func TestLeakReportKeysMayComeFromTheEnvironment(t *testing.T) {
	private, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&private.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	keysJSON, err := json.Marshal(map[string]any{"public_keys": []map[string]any{{
		"key_identifier": "k1", "key": string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})), "is_current": true,
	}}})
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"CROWNS_LEAK_REPORT_KEYS": string(keysJSON)}
	cfg, err := loadServeConfig(func(name string) string { return env[name] })
	if err != nil || cfg.LeakReportKeys.Len() != 1 {
		t.Fatalf("keys in the environment: %d keys, %v; want 1", cfg.LeakReportKeys.Len(), err)
	}
	for _, bad := range []map[string]string{
		{"CROWNS_LEAK_REPORT_KEYS": `{"public_keys": [{"key_identifier": "k", "key": "not a PEM key"}]}`},
	} {
		if _, err := loadServeConfig(func(name string) string { return bad[name] }); err == nil || !strings.Contains(err.Error(), "CROWNS_LEAK_REPORT_KEYS: ") {
			t.Errorf("serve's configuration with %v: %v, want the keys' problem", bad, err)
		}
	}
	// Both, each good: one problem, that both are set.
	file := filepath.Join(t.TempDir(), "keys.json")
	if err := os.WriteFile(file, keysJSON, 0o600); err != nil {
		t.Fatal(err)
	}
	both := map[string]string{"CROWNS_LEAK_REPORT_KEYS": string(keysJSON), "CROWNS_LEAK_REPORT_KEYS_FILE": file}
	if _, err := loadServeConfig(func(name string) string { return both[name] }); err == nil ||
		err.Error() != "set CROWNS_LEAK_REPORT_KEYS or CROWNS_LEAK_REPORT_KEYS_FILE, not both" {
		t.Errorf("serve's configuration with both: %v, want the one problem that both are set", err)
	}
}

// TestTheTextCommandPrefixIsBounded: the prefix is repeated in the help
// and the key's message, which Discord takes up to 2000 characters: a
// prefix over bot.MaxPrefixLength is refused at start, one at it is not.
func TestTheTextCommandPrefixIsBounded(t *testing.T) {
	loadConfigExpecting(t, map[string]string{"CROWNS_DISCORD_PREFIX": "!" + strings.Repeat("k", bot.MaxPrefixLength)},
		"CROWNS_DISCORD_PREFIX must be at most 32 characters")
	loadConfigExpecting(t, map[string]string{"CROWNS_DISCORD_PREFIX": strings.Repeat("é", bot.MaxPrefixLength)}, "")
}

// TestTheTextCommandPrefixHoldsNoBacktick: the bot's answers quote its
// commands as inline code (`!key get`), which a backtick in the prefix
// would end early.
func TestTheTextCommandPrefixHoldsNoBacktick(t *testing.T) {
	loadConfigExpecting(t, map[string]string{"CROWNS_DISCORD_PREFIX": "`key"},
		"CROWNS_DISCORD_PREFIX must not hold a backtick (`)")
	loadConfigExpecting(t, map[string]string{"CROWNS_DISCORD_PREFIX": "'key"}, "")
}

// TestRefusedConfigurationNamesUnknownVariables: a misspelled variable is
// often why the configuration is refused (the bot's guild id set under a
// wrong name); the warning naming it and the closest known name comes
// with the refusal, in either log format.
func TestRefusedConfigurationNamesUnknownVariables(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			env := map[string]string{
				"CROWNS_DATA_DIR":               t.TempDir(),
				"CROWNS_LOG_FORMAT":             format,
				"CROWNS_DISCORD_TOKEN":          "token",
				"CROWNS_DISCORD_KEY_CHANNEL_ID": "2",
				"CROWNS_DISCORD_GUILD":          "1",
			}
			var stdout, stderr bytes.Buffer
			if code := run(t.Context(), []string{"keys", "list"}, testCLI(&stdout, &stderr, env)); code != exitUsage {
				t.Fatalf("keys list: exit %d, want %d:\n%s", code, exitUsage, stderr.String())
			}
			out := stderr.String()
			if !strings.Contains(out, "CROWNS_DISCORD_GUILD_ID is required") {
				t.Fatalf("stderr does not refuse the configuration:\n%s", out)
			}
			var warnings []string
			for _, line := range strings.Split(out, "\n") {
				if strings.Contains(line, "unknown configuration variable") {
					warnings = append(warnings, line)
				}
			}
			name, closest := "name=CROWNS_DISCORD_GUILD", "closest=CROWNS_DISCORD_GUILD_ID"
			if format == "json" {
				name, closest = `"name":"CROWNS_DISCORD_GUILD"`, `"closest":"CROWNS_DISCORD_GUILD_ID"`
			}
			if len(warnings) != 1 || !strings.Contains(warnings[0], name) || !strings.Contains(warnings[0], closest) {
				t.Fatalf("warnings %q, want one naming CROWNS_DISCORD_GUILD and CROWNS_DISCORD_GUILD_ID:\n%s", warnings, out)
			}
			if format == "json" {
				for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
					if !json.Valid([]byte(line)) {
						t.Errorf("not a JSON record: %q", line)
					}
				}
			}
		})
	}
}

// TestConfigChecksTheDiscordIDs: the server and channel ids are numbers
// (Discord's snowflakes); anything else is a configuration problem naming
// its variable, not a bot that connects and cannot find its server.
func TestConfigChecksTheDiscordIDs(t *testing.T) {
	for _, name := range []string{"CROWNS_DISCORD_GUILD_ID", "CROWNS_DISCORD_KEY_CHANNEL_ID", "CROWNS_DISCORD_LOG_CHANNEL_ID"} {
		for _, tt := range []struct {
			value, problem string
		}{
			{"1101234567890123456", ""},
			{" 1101234567890123456 ", ""},
			{"my-server", name + " must be a Discord id"},
			{"#keys", name + " must be a Discord id"},
			{"-1", name + " must be a Discord id"},
			{"123456789012345678901234", name + " must be a Discord id"},
		} {
			t.Run(name+"="+tt.value, func(t *testing.T) {
				env := map[string]string{
					"CROWNS_DISCORD_TOKEN":          "token",
					"CROWNS_DISCORD_GUILD_ID":       "1",
					"CROWNS_DISCORD_KEY_CHANNEL_ID": "2",
					name:                            tt.value,
				}
				loadConfigExpecting(t, env, tt.problem)
			})
		}
	}
}

// TestConfigRefusesBudgetsTooSmallOrNotFinite: a budget of key lookups
// or game calls must give one at least once in 100 years, as the key's
// rate limit must fill in that time; a smaller one is no bound at all in
// the limiter (its interval between tokens does not fit in nanoseconds),
// so it is refused naming the variable, as are Inf and NaN for every rate.
func TestConfigRefusesBudgetsTooSmallOrNotFinite(t *testing.T) {
	budgets := []string{"CROWNS_KEY_LOOKUPS_PER_ADDRESS", "CROWNS_KEY_LOOKUPS_PER_SECOND", "CROWNS_GAME_CALLS_PER_KEY"}
	for _, name := range budgets {
		tests := []struct {
			value, problem string
		}{
			{"1e-9", ""}, // one in 32 years
			{"0.5", ""},
			{"1e-12", name + " must be greater than 0 and give one at least once in 100 years"},
			{"0", name + " must be greater than 0"},
			{"-1", name + " must be greater than 0"},
			{"Inf", name + " must be a finite number"},
			{"NaN", name + " must be a finite number"},
		}
		for _, tt := range tests {
			t.Run(name+"="+tt.value, func(t *testing.T) {
				loadConfigExpecting(t, map[string]string{name: tt.value}, tt.problem)
			})
		}
	}
	// The key's rate is sent in every answer's x-ratelimit-limit, where
	// 1e308 was 309 digits; it is bounded as the burst is, at a million.
	const tooFast = "CROWNS_RATE_LIMIT_PER_SECOND must be greater than 0 and at most 1e+06"
	loadConfigExpecting(t, map[string]string{"CROWNS_RATE_LIMIT_PER_SECOND": "1e308"}, tooFast)
	loadConfigExpecting(t, map[string]string{"CROWNS_RATE_LIMIT_PER_SECOND": "1000001"}, tooFast)
	loadConfigExpecting(t, map[string]string{"CROWNS_RATE_LIMIT_PER_SECOND": "1000000", "CROWNS_RATE_LIMIT_BURST": "1000000"}, "")
	for _, name := range []string{"CROWNS_RATE_LIMIT_PER_SECOND", "CROWNS_SNAPSHOT_RATE_PER_SECOND"} {
		for _, value := range []string{"Inf", "+Inf", "-Inf", "NaN"} {
			t.Run(name+"="+value, func(t *testing.T) {
				loadConfigExpecting(t, map[string]string{name: value}, name+" must be a finite number")
			})
		}
	}
}

// TestConfigRefusesAnUpstreamURLOrTokenThatNoCallCouldUse: each call's
// path is added at the end of CROWNS_UPSTREAM_URL and the token goes in
// a header, so a base with a query or fragment, a user and password
// (never sent, yet printed in the summary), a token list of commas alone
// or a token with a control character would start and then fail every
// call; each is refused at start-up naming its variable.
func TestConfigRefusesAnUpstreamURLOrTokenThatNoCallCouldUse(t *testing.T) {
	const urlProblem = "CROWNS_UPSTREAM_URL must be the game API's base alone"
	tests := []struct {
		name, url, token, problem string
	}{
		{"a base", "https://api.example.com/v1", "token", ""},
		{"several tokens", "https://api.example.com/v1", "one, two", ""},
		{"a query", "https://api.example.com/v1?region=eu", "token", urlProblem},
		{"an empty query", "https://api.example.com/v1?", "token", urlProblem},
		{"a fragment", "https://api.example.com/v1#top", "token", urlProblem},
		{"a user and password", "https://crowns:hunter2@api.example.com/v1", "token", urlProblem},
		{"commas alone", "https://api.example.com/v1", " , ,", "CROWNS_UPSTREAM_TOKEN lists no token"},
		{"a line break", "https://api.example.com/v1", "one\ntwo", "CROWNS_UPSTREAM_TOKEN holds a control character"},
		{"a control character", "https://api.example.com/v1", "one,t\x01wo", "CROWNS_UPSTREAM_TOKEN holds a control character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadConfig(func(name string) string {
				return map[string]string{"CROWNS_UPSTREAM_URL": tt.url, "CROWNS_UPSTREAM_TOKEN": tt.token}[name]
			})
			if tt.problem == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.problem) {
				t.Fatalf("loadConfig error %v, want %q", err, tt.problem)
			}
			if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "t\x01wo") {
				t.Fatalf("the refusal shows a secret: %v", err)
			}
		})
	}
}
