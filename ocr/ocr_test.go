package ocr

import (
	"context"
	"errors"
	"testing"
)

// TestOff: every Off is the same engine, which the sources compare their
// option with, and it recognises nothing.
func TestOff(t *testing.T) {
	if Off() != Off() {
		t.Fatal("two calls of Off give engines that are not equal")
	}
	res, err := Off().Recognize(context.Background(), Image{Data: []byte("P5 1 1 255 \x00"), Format: PNM, Width: 1, Height: 1})
	if res != nil || !errors.Is(err, ErrUnavailable) {
		t.Errorf("Off().Recognize = %v, %v; want nil and ErrUnavailable", res, err)
	}
}
