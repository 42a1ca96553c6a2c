package dockerfiles

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// instruction is one Dockerfile instruction, its continuation lines
// joined: INSTRUCTION and the rest of the line.
type instruction struct {
	name string
	args string
}

// stage is the instructions of one FROM.
type stage struct {
	from         string
	instructions []instruction
}

// find is the stage's instructions called name.
func (s stage) find(name string) []instruction {
	var found []instruction
	for _, in := range s.instructions {
		if in.name == name {
			found = append(found, in)
		}
	}
	return found
}

// parseDockerfile splits text into stages of instructions; comments and
// blank lines are skipped, lines ending in a backslash are continued.
func parseDockerfile(t *testing.T, text string) []stage {
	t.Helper()
	var stages []stage
	var pending string
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if pending == "" && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if cont, ok := strings.CutSuffix(trimmed, `\`); ok {
			pending += cont + " "
			continue
		}
		full := pending + trimmed
		pending = ""
		name, args, _ := strings.Cut(full, " ")
		in := instruction{name: strings.ToUpper(name), args: strings.Join(strings.Fields(args), " ")}
		if in.name == "FROM" {
			stages = append(stages, stage{from: in.args})
			continue
		}
		if len(stages) == 0 {
			if in.name == "ARG" {
				continue
			}
			t.Fatalf("%s before the first FROM", in.name)
		}
		stages[len(stages)-1].instructions = append(stages[len(stages)-1].instructions, in)
	}
	return stages
}

func read(t *testing.T, path string) string {
	t.Helper()
	content, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(content)
}

// TestDockerfile: the image runs as the nonroot user with /data its own,
// checks its health with crowns healthcheck (distroless has no curl) and
// carries the version passed at build.
func TestDockerfile(t *testing.T) {
	stages := parseDockerfile(t, read(t, "Dockerfile"))
	if len(stages) != 2 {
		t.Fatalf("%d stages, want a build stage and the final image", len(stages))
	}
	build, final := stages[0], stages[1]
	if !strings.Contains(final.from, "distroless") || !strings.HasSuffix(final.from, ":nonroot") {
		t.Errorf("final image FROM %s, want distroless nonroot", final.from)
	}
	if users := final.find("USER"); len(users) != 1 || (users[0].args != "65532:65532" && users[0].args != "nonroot:nonroot") {
		t.Errorf("final image USER %v, want the nonroot user 65532", users)
	}

	// /data: made in the build stage, copied owned by 65532, the data dir.
	var made bool
	for _, in := range build.find("RUN") {
		made = made || regexp.MustCompile(`\bmkdir\b.* /out/data\b`).MatchString(in.args)
	}
	var owned bool
	for _, in := range final.find("COPY") {
		owned = owned || regexp.MustCompile(`--from=build --chown=(65532:65532|nonroot:nonroot) /out/data /data$`).MatchString(in.args)
	}
	if !made || !owned {
		t.Errorf("/data is not made in the build stage (%v) and copied owned by 65532 (%v)", made, owned)
	}
	if env := final.find("ENV"); len(env) == 0 || !strings.Contains(env[0].args, "CROWNS_DATA_DIR=/data") {
		t.Errorf("ENV %v does not set CROWNS_DATA_DIR=/data", env)
	}
	if volumes := final.find("VOLUME"); len(volumes) != 1 || volumes[0].args != `["/data"]` {
		t.Errorf("VOLUME %v, want /data", volumes)
	}

	healthchecks := final.find("HEALTHCHECK")
	if len(healthchecks) != 1 || !strings.HasSuffix(healthchecks[0].args, `CMD ["/usr/local/bin/crowns", "healthcheck"]`) {
		t.Errorf("HEALTHCHECK %v, want CMD crowns healthcheck", healthchecks)
	}

	// The version: ARG VERSION before the go build that links it into
	// main.version, a variable the command has.
	var declared, linked bool
	for _, in := range build.instructions {
		declared = declared || (in.name == "ARG" && regexp.MustCompile(`^VERSION(=|$)`).MatchString(in.args))
		if in.name == "RUN" && strings.Contains(in.args, "go build") {
			linked = declared && strings.Contains(in.args, `-X main.version=${VERSION}`) && strings.Contains(in.args, "./cmd/crowns")
		}
	}
	if !linked {
		t.Error("the go build of ./cmd/crowns does not link ARG VERSION into main.version")
	}
	if !regexp.MustCompile(`(?m)^var version string$`).MatchString(read(t, "../cmd/crowns/main.go")) {
		t.Error("cmd/crowns has no `var version string` for -X main.version")
	}
}

// TestDockerignore: the build context leaves out history, local data and
// secrets.
func TestDockerignore(t *testing.T) {
	lines := strings.Split(read(t, "../.dockerignore"), "\n")
	for _, want := range []string{".git", "**/crowns-data", "**/*.db", "**/*.key", "docker/secrets", "docker/crowns.env", "docker/*.txt"} {
		if !slices.Contains(lines, want) {
			t.Errorf(".dockerignore lacks %s", want)
		}
	}
}

// composeFile is what the test reads of compose.yaml.
type composeFile struct {
	Services map[string]composeService `yaml:"services"`
	Secrets  map[string]struct {
		File string `yaml:"file"`
	} `yaml:"secrets"`
}

type composeService struct {
	Build struct {
		Args map[string]string `yaml:"args"`
	} `yaml:"build"`
	DependsOn map[string]struct {
		Condition string `yaml:"condition"`
	} `yaml:"depends_on"`
	EnvFile     string            `yaml:"env_file"`
	Environment map[string]string `yaml:"environment"`
	Secrets     []string          `yaml:"secrets"`
	Healthcheck struct {
		Test []string `yaml:"test"`
	} `yaml:"healthcheck"`
	Restart  string   `yaml:"restart"`
	ReadOnly bool     `yaml:"read_only"`
	Ports    []string `yaml:"ports"`
	Expose   []string `yaml:"expose"`
	Logging  struct {
		Driver  string            `yaml:"driver"`
		Options map[string]string `yaml:"options"`
	} `yaml:"logging"`
	Deploy struct {
		Resources struct {
			Limits struct {
				Memory string `yaml:"memory"`
			} `yaml:"limits"`
		} `yaml:"resources"`
	} `yaml:"deploy"`
}

// TestComposeStartsFromItsOwnSteps: every file compose.yaml needs is made
// by a step written at its top, the secret is required, both services
// have health checks and crowns waits for a healthy PostgreSQL.
func TestComposeStartsFromItsOwnSteps(t *testing.T) {
	text := read(t, "compose.yaml")
	var compose composeFile
	if err := yaml.Unmarshal([]byte(text), &compose); err != nil {
		t.Fatal(err)
	}
	var steps []string
	for _, line := range strings.Split(text, "\n") {
		if step, ok := strings.CutPrefix(line, "#"); ok {
			steps = append(steps, strings.TrimSpace(step))
		}
	}
	madeBySteps := func(path string) bool {
		return slices.ContainsFunc(steps, func(step string) bool {
			return strings.HasSuffix(step, "> "+path) || strings.HasSuffix(step, " "+path) && strings.HasPrefix(step, "cp ")
		})
	}

	crowns, postgres := compose.Services["crowns"], compose.Services["postgres"]
	for name, service := range compose.Services {
		for _, secret := range service.Secrets {
			file := compose.Secrets[secret].File
			if file == "" {
				t.Errorf("%s uses secret %s, which names no file", name, secret)
			} else if !madeBySteps("docker/" + file) {
				t.Errorf("no step writes docker/%s (secret %s)", file, secret)
			}
		}
		if service.Restart == "" || service.Deploy.Resources.Limits.Memory == "" || len(service.Healthcheck.Test) == 0 {
			t.Errorf("%s: restart %q, memory limit %q, health check %v; want all three", name, service.Restart, service.Deploy.Resources.Limits.Memory, service.Healthcheck.Test)
		}
		if logs := service.Logging; logs.Driver == "" || logs.Options["max-size"] == "" || logs.Options["max-file"] == "" {
			t.Errorf("%s: logging %+v, want a driver with rotated files (max-size, max-file)", name, logs)
		}
	}
	if crowns.EnvFile == "" || !madeBySteps("docker/"+crowns.EnvFile) {
		t.Errorf("no step makes the env_file docker/%s", crowns.EnvFile)
	}
	if !slices.Equal(crowns.Healthcheck.Test, []string{"CMD", "/usr/local/bin/crowns", "healthcheck"}) {
		t.Errorf("crowns health check %v, want crowns healthcheck", crowns.Healthcheck.Test)
	}
	if !strings.Contains(strings.Join(postgres.Healthcheck.Test, " "), "pg_isready") {
		t.Errorf("postgres health check %v, want pg_isready", postgres.Healthcheck.Test)
	}
	if crowns.DependsOn["postgres"].Condition != "service_healthy" {
		t.Errorf("crowns depends on postgres with %q, want service_healthy", crowns.DependsOn["postgres"].Condition)
	}
	if !crowns.ReadOnly {
		t.Error("crowns does not run on a read-only root file system")
	}
	if crowns.Build.Args["VERSION"] == "" {
		t.Error("the crowns build passes no VERSION")
	}
	// Metrics reach the compose network, never the host.
	_, metricsPort, _ := strings.Cut(crowns.Environment["CROWNS_METRICS_ADDR"], ":")
	if metricsPort == "" || !slices.Contains(crowns.Expose, metricsPort) || slices.ContainsFunc(crowns.Ports, func(p string) bool { return strings.Contains(p, metricsPort) }) {
		t.Errorf("metrics address %q, expose %v, ports %v: want metrics exposed to the network, not published", crowns.Environment["CROWNS_METRICS_ADDR"], crowns.Expose, crowns.Ports)
	}

	// The key secret is required: it comes from a compose secret (a file
	// the steps make), and the env file never sets it, empty or not.
	secretFile, ok := strings.CutPrefix(crowns.Environment["CROWNS_SECRET_FILE"], "/run/secrets/")
	if !ok || !slices.Contains(crowns.Secrets, secretFile) {
		t.Errorf("CROWNS_SECRET_FILE %q is not one of crowns's secrets %v", crowns.Environment["CROWNS_SECRET_FILE"], crowns.Secrets)
	}
	if _, set := crowns.Environment["CROWNS_SECRET"]; set {
		t.Error("compose sets CROWNS_SECRET beside CROWNS_SECRET_FILE")
	}
	example := read(t, "crowns.env.example")
	if regexp.MustCompile(`(?m)^\s*CROWNS_SECRET(_FILE)?=`).MatchString(example) {
		t.Error("crowns.env.example sets CROWNS_SECRET: an empty one would silently generate a secret in the container")
	}
	if strings.Contains(example, "CHANGE-ME") && !slices.ContainsFunc(steps, func(step string) bool {
		return strings.Contains(step, "s/CHANGE-ME/") && strings.Contains(step, "docker/"+crowns.EnvFile)
	}) {
		t.Error("no step replaces CHANGE-ME in the env file")
	}
}
