package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// modulePath is the import path of this module.
const modulePath = "github.com/crownsdev/crowns/"

// layoutRule is what the production files of one folder (and its
// subfolders, unless a longer rule names them) may import of this module,
// and which transports they must never import.
type layoutRule struct {
	dir string
	// may are import paths within the module (without modulePath); one
	// ending in "/..." allows that package and those under it.
	may []string
	// never are import path prefixes outside the module.
	never []string
}

// Transports the model layer and the roles keep to their own folders.
const (
	fiber     = "github.com/gofiber/"
	fasthttp  = "github.com/valyala/fasthttp"
	discordgo = "github.com/bwmarrin/discordgo"
)

// layout is ARCHITECTURE.md's table of what each folder may import.
var layout = []layoutRule{
	{dir: "models", may: []string{"internal/..."}, never: []string{fiber, fasthttp, discordgo}},
	{dir: "models/store", may: []string{"models", "models/store/...", "internal/..."}, never: []string{fiber, fasthttp, discordgo}},
	{dir: "models/legacy", may: []string{"models"}, never: []string{fiber, fasthttp, discordgo}},
	{dir: "keys", may: []string{"models", "internal/..."}, never: []string{fiber, fasthttp, discordgo}},
	{dir: "upstream", may: []string{"models", "models/legacy", "upstream/...", "internal/..."}, never: []string{fiber, fasthttp, discordgo}},
	{dir: "api", may: []string{"models", "models/legacy", "keys", "api/...", "internal/..."}, never: []string{discordgo}},
	{dir: "bot", may: []string{"models", "keys", "bot/...", "internal/..."}, never: []string{fiber, fasthttp}},
	{dir: "scheduler", may: []string{"models", "upstream/...", "internal/..."}, never: []string{fiber, fasthttp, discordgo}},
	{dir: "internal", may: []string{"internal/..."}, never: []string{fiber, fasthttp, discordgo}},
}

// roleFolders hold the roles, which never import each other, their tests
// included.
var roleFolders = []string{"api", "bot", "scheduler"}

// TestPackagesImportOnlyWhatTheLayoutAllows holds every Go file of the
// module's folders to ARCHITECTURE.md's table: imports point down to
// models, roles never import each other, and the transports stay in
// their roles.
func TestPackagesImportOnlyWhatTheLayoutAllows(t *testing.T) {
	root := filepath.Join("..", "..")
	files := 0
	for _, rule := range layout {
		err := filepath.WalkDir(filepath.Join(root, rule.dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
				return err
			}
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			if ruleOf(rel).dir != rule.dir {
				return nil // a longer rule's folder
			}
			imports, err := importsOf(path)
			if err != nil {
				return err
			}
			files++
			checkImports(t, rel, rule, imports)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 100 {
		t.Fatalf("only %d files read: wrong root?", files)
	}
}

// checkImports reports the imports of the file rel (under rule) that the
// layout forbids.
func checkImports(t *testing.T, rel string, rule layoutRule, imports []string) {
	t.Helper()
	test := strings.HasSuffix(rel, "_test.go")
	for _, imported := range imports {
		for _, forbidden := range rule.never {
			if !test && strings.HasPrefix(imported, forbidden) {
				t.Errorf("%s imports %s, a transport %s must not use", rel, imported, rule.dir)
			}
		}
		inner, ok := strings.CutPrefix(imported, modulePath)
		if !ok {
			continue
		}
		if test {
			if role, other := roleOf(rel), roleOf(inner); role != "" && other != "" && role != other {
				t.Errorf("%s (a test of %s) imports %s: roles never import each other", rel, role, imported)
			}
			continue
		}
		if !mayImport(rule, inner) {
			t.Errorf("%s imports %s; %s may import only %v of this module", rel, imported, rule.dir, rule.may)
		}
	}
}

// ruleOf is the rule of the file rel: that of its longest folder.
func ruleOf(rel string) layoutRule {
	var best layoutRule
	for _, rule := range layout {
		if strings.HasPrefix(rel, rule.dir+"/") && len(rule.dir) > len(best.dir) {
			best = rule
		}
	}
	return best
}

// roleOf is the role whose folder holds path (a file or an import path
// within the module), or "".
func roleOf(path string) string {
	for _, role := range roleFolders {
		if path == role || strings.HasPrefix(path, role+"/") {
			return role
		}
	}
	return ""
}

// mayImport tells whether rule allows importing inner (a path within the
// module).
func mayImport(rule layoutRule, inner string) bool {
	for _, allowed := range rule.may {
		tree, isTree := strings.CutSuffix(allowed, "/...")
		if inner == tree || isTree && strings.HasPrefix(inner, tree+"/") {
			return true
		}
	}
	return false
}

// importsOf lists the import paths of a Go file.
func importsOf(path string) ([]string, error) {
	file, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
	if err != nil {
		return nil, err
	}
	imports := make([]string, 0, len(file.Imports))
	for _, spec := range file.Imports {
		imported, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			return nil, err
		}
		imports = append(imports, imported)
	}
	return imports, nil
}
