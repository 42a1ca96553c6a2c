package keys_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/crownsdev/crowns/models"
)

// TestAVerificationOutOfTimeAdvisesTheDatabaseWait: a caller whose time
// runs out while the database looks its key up, or before it could ask,
// is told to come back after the wait every other answer of a database
// that cannot answer advises (the store's), not a default of its own.
func TestAVerificationOutOfTimeAdvisesTheDatabaseWait(t *testing.T) {
	issued, gated, service := gatedService(t, false)
	synctest.Test(t, func(t *testing.T) {
		gated.close()
		waiting, leave := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := service.VerifyAt(waiting, issued.Key, testStart)
			done <- err
		}()
		synctest.Wait()
		leave()
		gone, cancel := context.WithCancel(context.Background())
		cancel()
		_, goneErr := service.VerifyAt(gone, issued.Key, testStart)
		for name, err := range map[string]error{"waiting for the lookup": <-done, "before asking": goneErr} {
			var unavailable *models.UnavailableError
			if !errors.As(err, &unavailable) {
				t.Fatalf("%s: %v, want the database unavailable", name, err)
			}
			if unavailable.Source != "database" || unavailable.RetryAfter != models.DatabaseRetryAfter {
				t.Errorf("%s: source %q, retry after %v; want database, %v", name, unavailable.Source, unavailable.RetryAfter, models.DatabaseRetryAfter)
			}
		}
		gated.open()
	})
}
