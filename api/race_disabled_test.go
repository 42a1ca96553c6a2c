//go:build !race

package api_test

// raceDetector tells that the tests run under the race detector (see
// race_enabled_test.go).
const raceDetector = false
