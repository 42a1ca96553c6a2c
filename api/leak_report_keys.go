package api

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"os"
	"strings"
)

// LeakReportKeys are the public keys that sign leaked-key reports, by key
// identifier: P-256 ECDSA keys, as GitHub publishes its secret-scanning
// keys. The zero value knows no key, so every report is refused.
type LeakReportKeys struct {
	keys map[string]*ecdsa.PublicKey
}

// leakReportKeysFile is the JSON shape of the keys file, GitHub's own:
// {"public_keys": [{"key_identifier": "...", "key": "-----BEGIN PUBLIC
// KEY-----...", "is_current": true}]}.
type leakReportKeysFile struct {
	PublicKeys []struct {
		KeyIdentifier string `json:"key_identifier"`
		Key           string `json:"key"`
	} `json:"public_keys"`
}

// LoadLeakReportKeys reads the keys file at path (see ParseLeakReportKeys).
func LoadLeakReportKeys(path string) (LeakReportKeys, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return LeakReportKeys{}, fmt.Errorf("read leak report keys: %w", err)
	}
	return ParseLeakReportKeys(data)
}

// ParseLeakReportKeys reads public keys in GitHub's published format
// (https://api.github.com/meta/public_keys/secret_scanning), every one
// kept whether current or not, so a report signed just before a rotation
// still verifies. It refuses a file without keys, a key that is not a
// PEM P-256 ECDSA public key, and an identifier given twice.
func ParseLeakReportKeys(data []byte) (LeakReportKeys, error) {
	var file leakReportKeysFile
	if err := json.Unmarshal(data, &file); err != nil {
		return LeakReportKeys{}, fmt.Errorf("leak report keys: not the public_keys JSON: %w", err)
	}
	if len(file.PublicKeys) == 0 {
		return LeakReportKeys{}, fmt.Errorf("leak report keys: no public_keys")
	}
	keys := LeakReportKeys{keys: make(map[string]*ecdsa.PublicKey, len(file.PublicKeys))}
	for i, entry := range file.PublicKeys {
		id := strings.TrimSpace(entry.KeyIdentifier)
		if id == "" {
			return LeakReportKeys{}, fmt.Errorf("leak report keys: key %d has no key_identifier", i+1)
		}
		if _, seen := keys.keys[id]; seen {
			return LeakReportKeys{}, fmt.Errorf("leak report keys: key_identifier %s given twice", id)
		}
		key, err := parseECDSAPublicKey(entry.Key)
		if err != nil {
			return LeakReportKeys{}, fmt.Errorf("leak report keys: key %s: %w", id, err)
		}
		keys.keys[id] = key
	}
	return keys, nil
}

func parseECDSAPublicKey(text string) (*ecdsa.PublicKey, error) {
	block, _ := pem.Decode([]byte(text))
	if block == nil || block.Type != "PUBLIC KEY" {
		return nil, fmt.Errorf("not a PEM PUBLIC KEY")
	}
	parsed, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, err
	}
	key, ok := parsed.(*ecdsa.PublicKey)
	if !ok || key.Curve != elliptic.P256() {
		return nil, fmt.Errorf("not a P-256 ECDSA key")
	}
	return key, nil
}

// Len is the number of keys known.
func (k LeakReportKeys) Len() int { return len(k.keys) }

// verify reports whether signature (base64 of an ASN.1 ECDSA signature)
// is the key id's signature of body's SHA-256.
func (k LeakReportKeys) verify(id, signature string, body []byte) bool {
	key, ok := k.keys[id]
	if !ok || signature == "" {
		return false
	}
	sig, err := base64.StdEncoding.DecodeString(signature)
	if err != nil {
		return false
	}
	digest := sha256.Sum256(body)
	return ecdsa.VerifyASN1(key, digest[:], sig)
}
