package api

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// documentFiles are the OpenAPI document, written by hand in YAML, and the
// documentation page with its vendored renderer.
//
//go:embed openapi/openapi.yaml docs/index.html docs/assets/redoc.standalone.js docs/assets/redoc.standalone.js.LICENSE.txt
var documentFiles embed.FS

// Paths of the embedded files.
const (
	openapiFile    = "openapi/openapi.yaml"
	docsPageFile   = "docs/index.html"
	docsScriptFile = "docs/assets/redoc.standalone.js"
	// docsScriptLicenseFile is the licence notice the script's first line
	// points to, next to it.
	docsScriptLicenseFile = "docs/assets/redoc.standalone.js.LICENSE.txt"
)

// OpenAPIDocument is the OpenAPI 3.1 document of every route, as the
// server answers it at /openapi.json: the embedded YAML converted to JSON,
// its anchors expanded and its key order kept.
func OpenAPIDocument() ([]byte, error) {
	raw, err := documentFiles.ReadFile(openapiFile)
	if err != nil {
		return nil, err
	}
	var root yaml.Node
	if err := yaml.Unmarshal(raw, &root); err != nil {
		return nil, fmt.Errorf("openapi document: %w", err)
	}
	var out bytes.Buffer
	if err := appendYAMLAsJSON(&out, &root); err != nil {
		return nil, fmt.Errorf("openapi document: %w", err)
	}
	return out.Bytes(), nil
}

// appendYAMLAsJSON writes node as JSON, mappings in their written order.
func appendYAMLAsJSON(out *bytes.Buffer, node *yaml.Node) error {
	switch node.Kind {
	case yaml.DocumentNode:
		if len(node.Content) != 1 {
			return fmt.Errorf("line %d: want one document", node.Line)
		}
		return appendYAMLAsJSON(out, node.Content[0])
	case yaml.AliasNode:
		return appendYAMLAsJSON(out, node.Alias)
	case yaml.MappingNode:
		out.WriteByte('{')
		for i := 0; i+1 < len(node.Content); i += 2 {
			key := node.Content[i]
			if key.Kind != yaml.ScalarNode || key.Value == "<<" {
				return fmt.Errorf("line %d: keys must be plain scalars", key.Line)
			}
			if i > 0 {
				out.WriteByte(',')
			}
			if err := appendJSONValue(out, key.Value); err != nil {
				return err
			}
			out.WriteByte(':')
			if err := appendYAMLAsJSON(out, node.Content[i+1]); err != nil {
				return err
			}
		}
		out.WriteByte('}')
		return nil
	case yaml.SequenceNode:
		out.WriteByte('[')
		for i, item := range node.Content {
			if i > 0 {
				out.WriteByte(',')
			}
			if err := appendYAMLAsJSON(out, item); err != nil {
				return err
			}
		}
		out.WriteByte(']')
		return nil
	case yaml.ScalarNode:
		var value any
		if err := node.Decode(&value); err != nil {
			return fmt.Errorf("line %d: %w", node.Line, err)
		}
		return appendJSONValue(out, value)
	}
	return fmt.Errorf("line %d: unexpected YAML node", node.Line)
}

func appendJSONValue(out *bytes.Buffer, value any) error {
	encoded, err := json.Marshal(value)
	if err != nil {
		return err
	}
	out.Write(encoded)
	return nil
}
