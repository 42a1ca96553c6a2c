package main

import (
	"net/url"
	"regexp"
	"strings"
)

// maskedPassword replaces a password in what is printed.
const maskedPassword = "xxxxx"

// dsnPassword matches the password settings of a key=value connection
// string (password, sslpassword), quoted or not.
var dsnPassword = regexp.MustCompile(`(?i)(password\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s]+)`)

// maskDatabaseURL is raw, a database URL or key=value connection string,
// with every password replaced: the URL's user password, any query
// parameter whose name contains "password", a key=value password setting.
// It is the only form in which a database URL is printed or logged.
func maskDatabaseURL(raw string) string {
	if !strings.Contains(raw, "://") {
		return dsnPassword.ReplaceAllString(raw, "${1}"+maskedPassword)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable URL)"
	}
	if query, err := url.ParseQuery(u.RawQuery); err == nil {
		masked := false
		for name := range query {
			if strings.Contains(strings.ToLower(name), "password") {
				query.Set(name, maskedPassword)
				masked = true
			}
		}
		if masked {
			u.RawQuery = query.Encode()
		}
	} else if strings.Contains(strings.ToLower(u.RawQuery), "password") {
		u.RawQuery = maskedPassword
	}
	return u.Redacted()
}
