package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// keysCLI runs crowns with the given environment and returns the exit
// code and both streams.
type keysCLI struct {
	env map[string]string
	// clock tells the commands the time (nil: the system clock).
	clock models.Clock
}

func newKeysCLI(t *testing.T, databaseURL string) keysCLI {
	t.Helper()
	return keysCLI{env: useDatabase(map[string]string{"CROWNS_DATA_DIR": t.TempDir()}, databaseURL)}
}

func (c keysCLI) run(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(context.Background(), append([]string{"keys"}, args...), cli{
		getenv: func(name string) string { return c.env[name] },
		stdout: &out,
		stderr: &errOut,
		clock:  c.clock,
	})
	return code, out.String(), errOut.String()
}

// key runs a command that must print exactly one well-formed key and a
// newline, and returns the key.
func (c keysCLI) key(t *testing.T, args ...string) string {
	t.Helper()
	code, stdout, stderr := c.run(args...)
	if code != exitOK {
		t.Fatalf("exit %d, stderr: %s", code, stderr)
	}
	key, found := strings.CutSuffix(stdout, "\n")
	if !found || len(key) != keys.KeyLength || keys.CheckFormat(key) != nil {
		t.Fatalf("stdout %q, want one key and a newline", stdout)
	}
	if strings.Contains(stderr, key) {
		t.Fatal("the key appears on stderr")
	}
	return key
}

func TestKeysCommandLifecycle(t *testing.T) {
	for _, engine := range commandEngines() {
		t.Run(engine.name, func(t *testing.T) {
			c := newKeysCLI(t, engine.databaseURL(t))
			first := c.key(t, "issue", "--discord-user", "123456789012345678", "--name", "alice")
			if again := c.key(t, "issue", "--discord-user=123456789012345678"); again != first {
				t.Fatal("second issue printed another key")
			}
			fresh := c.key(t, "regenerate", "--discord-user", "123456789012345678")
			if fresh == first {
				t.Fatal("regenerate printed the same key")
			}
			if reminder := c.key(t, "issue", "--discord-user", "123456789012345678"); reminder != fresh {
				t.Fatal("issue after regenerate did not print the new key")
			}

			confirmations := []struct {
				args []string
				want string
			}{
				{[]string{"disable", "--discord-user", "123456789012345678", "--reason", "left"}, "disable: developer 123456789012345678 is now disabled\n"},
				{[]string{"revoke", "--discord-user", "123456789012345678"}, "revoke: developer 123456789012345678 is now without a key\n"},
				{[]string{"blacklist", "--discord-user", "7", "--reason", "spam"}, "blacklist: developer 7 is now blacklisted\n"},
			}
			for _, tt := range confirmations {
				code, stdout, stderr := c.run(tt.args...)
				if code != exitOK || stdout != tt.want {
					t.Errorf("%v: exit %d, stdout %q, want %q (stderr %s)", tt.args, code, stdout, tt.want, stderr)
				}
			}

			code, stdout, stderr := c.run("issue", "--discord-user", "7")
			if code != exitFailure || stdout != "" || !strings.Contains(stderr, "blacklisted") {
				t.Fatalf("issue for a blacklisted developer: exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
			code, stdout, _ = c.run("regenerate", "--discord-user", "7")
			if code != exitFailure || stdout != "" {
				t.Fatalf("regenerate for a blacklisted developer: exit %d, stdout %q", code, stdout)
			}
			code, stdout, stderr = c.run("blacklist", "--discord-user", "7", "--reason", "again")
			if code != exitFailure || stdout != "" || !strings.Contains(stderr, "developer 7 was already blacklisted: nothing changed") {
				t.Fatalf("blacklisting again: exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}

			code, stdout, _ = c.run("list")
			if code != exitOK || !strings.Contains(stdout, "DISCORD USER") || !strings.Contains(stdout, "alice") ||
				!strings.Contains(stdout, "blacklisted") || strings.Contains(stdout, first) || strings.Contains(stdout, fresh) {
				t.Fatalf("list: exit %d, stdout:\n%s", code, stdout)
			}
			code, stdout, _ = c.run("show", "--discord-user", "7")
			if code != exitOK || !strings.Contains(stdout, "by cli at ") || !strings.Contains(stdout, "spam") {
				t.Fatalf("show: exit %d, stdout:\n%s", code, stdout)
			}
			code, stdout, _ = c.run("show", "--discord-user", "123456789012345678")
			if code != exitOK || !strings.Contains(stdout, "1 replaced, 1 revoked") || strings.Contains(stdout, fresh) {
				t.Fatalf("show: exit %d, stdout:\n%s", code, stdout)
			}

			if code, stdout, _ := c.run("unblacklist", "--discord-user", "7"); code != exitOK || !strings.Contains(stdout, "without a key") {
				t.Fatalf("unblacklist: exit %d, stdout %q", code, stdout)
			}
			c.key(t, "issue", "--discord-user", "7")

			// Changes that change nothing say so, and fail.
			refusals := []struct {
				args []string
				want string
			}{
				{[]string{"revoke", "--discord-user", "123456789012345678"}, "developer 123456789012345678 has no key in use: nothing revoked"},
				{[]string{"unblacklist", "--discord-user", "7"}, "developer 7 is not blacklisted: nothing changed"},
				{[]string{"blacklist", "--discord-user", "8", "--reason", "spam"}, ""},
				{[]string{"revoke", "--discord-user", "8"}, "developer 8 is blacklisted: their key is refused already, nothing revoked"},
			}
			for _, tt := range refusals {
				code, stdout, stderr := c.run(tt.args...)
				if tt.want == "" {
					if code != exitOK {
						t.Fatalf("%v: exit %d, stderr %s", tt.args, code, stderr)
					}
					continue
				}
				if code != exitFailure || stdout != "" || !strings.Contains(stderr, tt.want) {
					t.Errorf("%v: exit %d, stdout %q, stderr %q, want exit %d and %q", tt.args, code, stdout, stderr, exitFailure, tt.want)
				}
			}
		})
	}
}

func TestKeysCommandUsesTheGeneratedSecretAcrossRuns(t *testing.T) {
	c := newKeysCLI(t, "")
	first := c.key(t, "issue", "--discord-user", "1")
	// A reminder decrypts the stored key: it works only with the same secret.
	if again := c.key(t, "issue", "--discord-user", "1"); again != first {
		t.Fatal("a second run could not remind the key")
	}
}

func TestKeysCommandRejectsBadArguments(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"no action", nil},
		{"unknown action", []string{"rotate", "--discord-user", "1"}},
		{"missing discord user", []string{"issue"}},
		{"empty discord user", []string{"issue", "--discord-user", ""}},
		{"non-numeric discord user", []string{"issue", "--discord-user", "alice"}},
		{"21-digit discord user", []string{"show", "--discord-user", "123456789012345678901"}},
		{"unknown flag", []string{"issue", "--discord-user", "1", "--force"}},
		{"flag of another action", []string{"issue", "--discord-user", "1", "--reason", "x"}},
		{"flag without value", []string{"revoke", "--discord-user"}},
		{"extra argument", []string{"list", "everyone"}},
		{"reason too long", []string{"revoke", "--discord-user", "1", "--reason", strings.Repeat("x", 501)}},
		{"name too long", []string{"issue", "--discord-user", "1", "--name", strings.Repeat("é", 101)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newKeysCLI(t, "")
			code, stdout, stderr := c.run(tt.args...)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d (stderr %q)", code, exitUsage, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") || len(stderr) < 10 {
				t.Errorf("stderr %q, want one line saying why", stderr)
			}
		})
	}
}

func TestKeysCommandReportsAnUnknownDeveloper(t *testing.T) {
	c := newKeysCLI(t, "")
	for _, action := range []string{"show", "disable", "revoke", "unblacklist"} {
		code, stdout, stderr := c.run(action, "--discord-user", "42")
		if code != exitFailure || stdout != "" || !strings.Contains(stderr, "no developer with Discord user id 42") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", action, code, stdout, stderr)
		}
	}
}

// A developer an earlier release stored under an id now refused for new
// developers (0042) is still shown and revoked by the command; a new one
// under such an id is still refused as a bad argument.
func TestKeysCommandManagesADeveloperStoredUnderAnIdNowRefused(t *testing.T) {
	c := newKeysCLI(t, "")
	c.key(t, "issue", "--discord-user", "42")
	ctx := context.Background()
	db, err := store.Open(ctx, store.DatabaseConfig{DataDir: c.env["CROWNS_DATA_DIR"]})
	if err != nil {
		t.Fatal(err)
	}
	err = storetest.SQL(t, db).WithContext(ctx).Exec(`UPDATE developers SET discord_user_id = '0042'`).Error
	_ = db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := c.run("show", "--discord-user", "0042"); code != exitOK || !strings.Contains(stdout, "0042") {
		t.Fatalf("show 0042: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if code, stdout, stderr := c.run("revoke", "--discord-user", "0042"); code != exitOK || !strings.Contains(stdout, "developer 0042 is now without a key") {
		t.Fatalf("revoke 0042: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if code, _, stderr := c.run("issue", "--discord-user", "0043"); code != exitUsage || !strings.Contains(stderr, "without a leading zero") {
		t.Fatalf("issue 0043: exit %d, stderr %q; want exit %d, the id refused", code, stderr, exitUsage)
	}
}
