package models_test

import (
	"testing"

	"github.com/crownsdev/crowns/models"
)

func TestDescriptionHasAddress(t *testing.T) {
	for _, tt := range []struct {
		description string
		want        bool
	}{
		{"Stats at crowns.example, join us", true},
		{"STATS AT CROWNS.EXAMPLE", true},
		{"crowns example", false},
		{"", false},
	} {
		if got := models.DescriptionHasAddress(tt.description, "Crowns.Example"); got != tt.want {
			t.Errorf("DescriptionHasAddress(%q) = %v, want %v", tt.description, got, tt.want)
		}
	}
}
