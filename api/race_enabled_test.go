//go:build race

package api_test

// raceDetector tells that the tests run under the race detector, whose
// sync.Pool drops pooled values on purpose: allocation counts mean
// nothing there.
const raceDetector = true
