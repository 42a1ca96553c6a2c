package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/keys"
)

// otherSecret is a valid secret other than testSecret.
var otherSecret = base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{5}, 32))

// runCrowns runs the crowns command line with env, as a separate process
// would, and returns its exit code and streams.
func runCrowns(env map[string]string, args ...string) (code int, stdout, stderr string) {
	// A serve that wrongly starts ends (and fails its test) rather than
	// hanging.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out, errOut bytes.Buffer
	code = run(ctx, args, testCLI(&out, &errOut, env))
	return code, out.String(), errOut.String()
}

// TestOneSecretPerDeployment: the first process records its secret's check
// value in the database; a process with another secret — on another host
// (PostgreSQL) or the same data dir (SQLite) — refuses to issue keys and to
// serve, with exit 2 and a line saying why, and the database still holds
// no trace of the secret; a process with the first secret works.
func TestOneSecretPerDeployment(t *testing.T) {
	for _, engine := range commandEngines() {
		t.Run(engine.name, func(t *testing.T) {
			databaseURL := engine.databaseURL(t)
			first := useDatabase(map[string]string{"CROWNS_DATA_DIR": t.TempDir(), "CROWNS_SECRET": testSecret}, databaseURL)
			key := keysIssue(t, first)

			// Another host: its own data dir, the same database, another secret.
			other := maps.Clone(first)
			other["CROWNS_SECRET"] = otherSecret
			if databaseURL != "" {
				other["CROWNS_DATA_DIR"] = t.TempDir()
			}
			refusals := map[string][]string{
				"keys issue": {"keys", "issue", "--discord-user", "42"},
				"keys list":  {"keys", "list"},
				"clans list": {"clans", "list"},
				"migrate":    {"migrate"},
			}
			for name, args := range refusals {
				code, stdout, stderr := runCrowns(other, args...)
				wantLine := "crowns " + name + ": " + secretDiffers
				if code != exitUsage || stdout != "" || !hasLinePrefix(stderr, wantLine) {
					t.Errorf("%s with another secret: exit %d, stdout %q, stderr %q; want exit %d and the line %q", name, code, stdout, stderr, exitUsage, wantLine)
				}
			}
			serve := maps.Clone(other)
			serve["CROWNS_ADDR"] = freeAddr(t)
			// Not the default port, which another process may hold.
			serve["CROWNS_METRICS_ADDR"] = "127.0.0.1:0"
			if code, _, stderr := runCrowns(serve, "serve"); code != exitUsage || !strings.Contains(stderr, "cannot start") || !strings.Contains(stderr, secretDiffers) {
				t.Errorf("serve with another secret: exit %d, want %d and a refusal saying %q:\n%s", code, exitUsage, secretDiffers, stderr)
			}

			// Another host with the first secret: the same key.
			same := maps.Clone(first)
			if databaseURL != "" {
				same["CROWNS_DATA_DIR"] = t.TempDir()
			}
			if again := keysIssue(t, same); again != key {
				t.Fatal("the first secret on another host did not remind the same key")
			}
		})
	}
}

// hasLinePrefix reports whether a line of text starts with prefix.
func hasLinePrefix(text, prefix string) bool {
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, prefix) {
			return true
		}
	}
	return false
}

// secretDiffers is what a process with another secret says.
const secretDiffers = "CROWNS_SECRET differs from the secret this database was first used with"

// keysIssue issues (or reminds) the key of developer 42 and returns it.
func keysIssue(t *testing.T, env map[string]string) string {
	t.Helper()
	code, stdout, stderr := runCrowns(env, "keys", "issue", "--discord-user", "42")
	if code != exitOK {
		t.Fatalf("keys issue: exit %d:\n%s", code, stderr)
	}
	return strings.TrimSuffix(stdout, "\n")
}

// TestSQLiteGeneratedSecretIsTheDeployments: on SQLite without
// CROWNS_SECRET the generated 0600 file is the secret; setting another
// CROWNS_SECRET later on the same data dir is refused.
func TestSQLiteGeneratedSecretIsTheDeployments(t *testing.T) {
	env := map[string]string{"CROWNS_DATA_DIR": t.TempDir()}
	key := keysIssue(t, env)
	info, err := os.Stat(filepath.Join(env["CROWNS_DATA_DIR"], "secret.key"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("generated secret file: %v, %v", info, err)
	}
	if again := keysIssue(t, env); again != key {
		t.Fatal("the generated secret did not remind the same key")
	}
	env["CROWNS_SECRET"] = otherSecret
	if code, _, stderr := runCrowns(env, "keys", "issue", "--discord-user", "42"); code != exitUsage || !strings.Contains(stderr, secretDiffers) {
		t.Fatalf("another CROWNS_SECRET on the generated secret's database: exit %d:\n%s", code, stderr)
	}
}

// TestALostSecretFileIsNotReplaced: on SQLite, a secret file missing
// beside a database used before is refused with exit 2 and a line saying
// to restore it, and no new secret is left in its place; with the file
// restored, the keys work again.
func TestALostSecretFileIsNotReplaced(t *testing.T) {
	env := map[string]string{"CROWNS_DATA_DIR": t.TempDir()}
	key := keysIssue(t, env)
	file := filepath.Join(env["CROWNS_DATA_DIR"], "secret.key")
	backup, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCrowns(env, "keys", "list")
	if code != exitUsage || !strings.Contains(stderr, "secret.key is missing") || !strings.Contains(stderr, "restore that file") {
		t.Fatalf("keys list without the secret file: exit %d:\n%s", code, stderr)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("a secret was left in place of the lost one: %v", err)
	}
	// A start that fails before the secret is read (a database migrated
	// by a newer release) generates none either.
	raw, err := sql.Open("sqlite", filepath.Join(env["CROWNS_DATA_DIR"], "crowns.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (999999, 'from a newer release', CURRENT_TIMESTAMP)`); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCrowns(env, "keys", "list"); code == exitOK {
		t.Fatalf("keys list on a database of a newer release: exit 0:\n%s", stderr)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("a start that failed left a secret: %v", err)
	}
	if _, err := raw.Exec(`DELETE FROM schema_migrations WHERE version = 999999`); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, backup, 0o600); err != nil {
		t.Fatal(err)
	}
	if again := keysIssue(t, env); again != key {
		t.Fatal("with the secret file restored, the same key was not reminded")
	}
}

// TestPostgresRequiresASecret: with PostgreSQL, serve and every command
// that opens the database stop before touching anything, with exit 2 and
// one line naming CROWNS_SECRET.
func TestPostgresRequiresASecret(t *testing.T) {
	want := "crowns: invalid configuration: " + errSecretRequired.Error() + "\n"
	for _, args := range [][]string{{"serve"}, {"keys", "issue", "--discord-user", "42"}, {"keys", "list"}, {"clans", "list"}, {"migrate"}} {
		dataDir := filepath.Join(t.TempDir(), "data")
		env := map[string]string{
			"CROWNS_DATA_DIR":     dataDir,
			"CROWNS_DATABASE_URL": "postgres://postgres@127.0.0.1:1/crowns",
			"CROWNS_ADDR":         freeAddr(t),
		}
		code, stdout, stderr := runCrowns(env, args...)
		if code != exitUsage || stdout != "" || stderr != want {
			t.Errorf("%v without CROWNS_SECRET: exit %d, stdout %q, stderr %q; want exit %d and %q", args, code, stdout, stderr, exitUsage, want)
		}
		if _, err := os.Stat(dataDir); !os.IsNotExist(err) {
			t.Errorf("%v: the data dir was created (%v)", args, err)
		}
	}
}

// TestPostgresWithoutASecretNamesTheSecretFileOfAnEarlierRelease: a
// release before the secret was required generated one into the data dir
// with PostgreSQL too and sealed its keys with it. Started there without
// CROWNS_SECRET, the line names that file, not only how to make a new
// secret (which the database would refuse), and the secret it holds is
// taken as the line says: its command, run by a shell, gives the file's
// content even from a directory whose name holds a space and a quote.
func TestPostgresWithoutASecretNamesTheSecretFileOfAnEarlierRelease(t *testing.T) {
	dataDir := filepath.Join(t.TempDir(), "crowns data's")
	secret, _, err := keys.LoadOrCreateSecret(dataDir, "")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dataDir, keys.SecretFileName)
	env := map[string]string{
		"CROWNS_DATA_DIR":     dataDir,
		"CROWNS_DATABASE_URL": "postgres://postgres@127.0.0.1:1/crowns",
		"CROWNS_ADDR":         freeAddr(t),
	}
	code, stdout, stderr := runCrowns(env, "serve")
	want := "crowns: invalid configuration: CROWNS_SECRET is required with PostgreSQL (CROWNS_DATABASE_URL): " + file +
		` holds the secret an earlier release generated there, which this database's keys may be sealed with: ` +
		`set CROWNS_SECRET to its content on every host (CROWNS_SECRET="$(cat '` + strings.ReplaceAll(file, "'", `'\''`) + `')")` + "\n"
	if code != exitUsage || stdout != "" || stderr != want {
		t.Fatalf("serve without CROWNS_SECRET beside a secret file: exit %d, stdout %q, stderr %q; want exit %d and %q", code, stdout, stderr, exitUsage, want)
	}
	_, command, _ := strings.Cut(strings.TrimSuffix(stderr, ")\n"), "every host (")
	out, err := exec.CommandContext(t.Context(), "sh", "-c", command+` && printf %s "$CROWNS_SECRET"`).Output()
	if err != nil {
		t.Fatalf("the line's command %s: %v", command, err)
	}
	taken, _, err := keys.LoadOrCreateSecret(t.TempDir(), string(out))
	if err != nil || !bytes.Equal(taken, secret) {
		t.Fatalf("CROWNS_SECRET set to the file's content: %v, the same secret %v", err, bytes.Equal(taken, secret))
	}
}

// firstProcessBeside plays a first process starting beside this one on an
// empty data dir: between this one's look for the secret file and its
// question to the database, it publishes its file and records its secret.
type firstProcessBeside struct{ dataDir string }

func (f firstProcessBeside) SecretRecorded(context.Context) (bool, error) {
	_, _, err := keys.LoadOrCreateSecret(f.dataDir, "")
	return true, err
}

// TestASecondProcessStartingBesideTheFirstUsesItsSecret: a process that
// finds no secret file, then a database with a secret recorded by a first
// process starting beside it, uses that process's file; it is not told the
// file was lost.
func TestASecondProcessStartingBesideTheFirstUsesItsSecret(t *testing.T) {
	dir := t.TempDir()
	secret, err := loadSecret(t.Context(), config{DataDir: dir}, slog.New(slog.DiscardHandler), firstProcessBeside{dir})
	if err != nil {
		t.Fatalf("the second process: %v", err)
	}
	first, _, err := keys.LoadOrCreateSecret(dir, "")
	if err != nil || !bytes.Equal(secret, first) {
		t.Fatalf("the second process's secret is not the first's (%v)", err)
	}
}

// TestASecretFileReadableByOthersIsRefusedAsConfiguration: on SQLite, a
// generated secret file whose mode was loosened is refused with exit 2,
// like every other secret problem an operator must mend, and a line
// saying how; chmod 600 mends it.
func TestASecretFileReadableByOthersIsRefusedAsConfiguration(t *testing.T) {
	env := map[string]string{"CROWNS_DATA_DIR": t.TempDir()}
	key := keysIssue(t, env)
	file := filepath.Join(env["CROWNS_DATA_DIR"], "secret.key")
	if err := os.Chmod(file, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCrowns(env, "keys", "list")
	if code != exitUsage || !strings.Contains(stderr, "has mode 0644") || !strings.Contains(stderr, "chmod 600") {
		t.Fatalf("keys list with a secret file readable by others: exit %d, want %d:\n%s", code, exitUsage, stderr)
	}
	if err := os.Chmod(file, 0o600); err != nil {
		t.Fatal(err)
	}
	if again := keysIssue(t, env); again != key {
		t.Fatal("with the mode mended, the same key was not reminded")
	}
}
