package api_test

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/crownsdev/crowns/api"
)

// documentURL names the OpenAPI document as a JSON Schema resource, so
// that its schemas compile with their references resolved.
const documentURL = "file:///openapi.json"

// schemaKeywords are the keywords a schema of the document may use: JSON
// Schema 2020-12's that the document needs, and OpenAPI's example. Any
// other key is a mistake, such as a description whose unquoted comma
// YAML read as a key of its own.
var schemaKeywords = []string{
	"$ref", "type", "description", "title", "properties", "required", "additionalProperties",
	"propertyNames", "items", "oneOf", "anyOf", "allOf", "enum", "const", "minimum", "maximum",
	"minLength", "maxLength", "minItems", "maxItems", "pattern", "format", "example", "examples",
	"default", "deprecated", "readOnly",
}

// TestTheDocumentsSchemasUseOnlyKeywordsAndItsExamplesFitThem walks every
// schema of the document for keys that are no keyword, and validates
// every example (of a schema, a media type, a parameter or a header)
// against the schema it illustrates, as the documentation page shows it.
func TestTheDocumentsSchemasUseOnlyKeywordsAndItsExamplesFitThem(t *testing.T) {
	raw, err := api.OpenAPIDocument()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	compiler := jsonschema.NewCompiler()
	compiler.DefaultDraft(jsonschema.Draft2020)
	if err := compiler.AddResource(documentURL, doc); err != nil {
		t.Fatal(err)
	}
	w := documentWalk{t: t, compiler: compiler}
	w.walk(doc, "", false)
	if w.examples < 20 || w.schemas < 50 {
		t.Fatalf("only %d examples and %d schemas found: is the walk lost?", w.examples, w.schemas)
	}
}

// documentWalk visits the document's values.
type documentWalk struct {
	t                 *testing.T
	compiler          *jsonschema.Compiler
	examples, schemas int
}

// walk visits v at pointer; inSchema says v is a schema.
func (w *documentWalk) walk(v any, pointer string, inSchema bool) {
	switch v := v.(type) {
	case map[string]any:
		if inSchema {
			w.checkSchema(v, pointer)
		}
		for _, key := range sortedKeys(v) {
			child := pointer + "/" + escapePointer(key)
			switch {
			case key == "example" && inSchema:
				w.checkExample(v[key], pointer, child)
			case key == "example" && v["schema"] != nil:
				w.checkExample(v[key], pointer+"/schema", child)
			case key == "example" || key == "examples":
				// An example of something else (or examples keyed by
				// name) is not walked as a schema.
			default:
				w.walk(v[key], child, holdsSchemas(pointer, key, inSchema))
			}
		}
	case []any:
		for i, item := range v {
			w.walk(item, fmt.Sprintf("%s/%d", pointer, i), inSchema)
		}
	}
}

// holdsSchemas says whether the value under key, in the object at
// pointer (itself a schema when inSchema), is a schema or a map or list
// of them.
func holdsSchemas(pointer, key string, inSchema bool) bool {
	switch {
	case key == "schema", pointer == "/components/schemas":
		return true
	case !inSchema:
		return false
	}
	switch key {
	case "items", "oneOf", "anyOf", "allOf", "additionalProperties", "propertyNames":
		return true
	}
	return false
}

// checkSchema reports keys of a schema that are no keyword, and required
// names it does not describe (generated clients leave those out of their
// types); the values of properties are schemas, walked on.
func (w *documentWalk) checkSchema(schema map[string]any, pointer string) {
	w.schemas++
	properties, _ := schema["properties"].(map[string]any)
	required, _ := schema["required"].([]any)
	for _, name := range required {
		if _, ok := properties[fmt.Sprint(name)]; !ok {
			w.t.Errorf("%s: required %q is not among its properties", pointer, name)
		}
	}
	for key, value := range schema {
		if !slices.Contains(schemaKeywords, key) {
			w.t.Errorf("%s: %q is no schema keyword", pointer, key)
		}
		if key == "properties" {
			properties, _ := value.(map[string]any)
			for _, name := range sortedKeys(properties) {
				w.walk(properties[name], pointer+"/properties/"+escapePointer(name), true)
			}
		}
	}
}

// checkExample validates example against the schema at schemaPointer.
func (w *documentWalk) checkExample(example any, schemaPointer, at string) {
	w.examples++
	schema, err := w.compiler.Compile(documentURL + "#" + schemaPointer)
	if err != nil {
		w.t.Errorf("%s: compile %s: %v", at, schemaPointer, err)
		return
	}
	if err := schema.Validate(example); err != nil {
		w.t.Errorf("%s does not fit its schema: %v", at, err)
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// escapePointer escapes a key for a JSON pointer.
func escapePointer(key string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(key)
}
