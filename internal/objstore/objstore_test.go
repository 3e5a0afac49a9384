package objstore

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"gocloud.dev/blob"
)

// Whatever the build tags left out, every scheme is still a URL, a driver
// this build carries is registered, and one it does not carry is refused
// by name, naming the tag, before anything is opened.
func TestDrivers(t *testing.T) {
	for _, scheme := range Schemes {
		t.Run(scheme, func(t *testing.T) {
			if !IsURL(scheme + "://bucket/prefix") {
				t.Errorf("%s:// is not taken for a URL", scheme)
			}
			carried := slices.Contains(Drivers(), scheme)
			if registered := blob.DefaultURLMux().ValidBucketScheme(scheme); registered != carried {
				t.Fatalf("%s:// registered %v, carried %v", scheme, registered, carried)
			}
			if carried {
				return
			}
			_, err := New().List(context.Background(), scheme+"://bucket/prefix/")
			var oe *Error
			if !errors.As(err, &oe) || oe.URL != scheme+"://bucket/prefix/" ||
				!strings.Contains(err.Error(), "built without the "+scheme+":// driver (-tags "+driverTags[scheme]+")") {
				t.Errorf("a scheme left out: %v", err)
			}
		})
	}
	if !slices.Contains(Drivers(), "file") {
		t.Error("file:// is not carried")
	}
}
