//go:build darwin && cgo

package idle

// This file holds the only C of package idle, kept to three thin calls:
// gopls cannot type-check cgo without a C compiler and the macOS SDK, but
// the Go around them (hididle_darwin.go) type-checks with CGO_ENABLED=0,
// where hididle_nocgo_darwin.go stands in.

/*
#cgo LDFLAGS: -framework IOKit -framework CoreFoundation
#include <stdint.h>
#include <IOKit/IOKitLib.h>
#include <CoreFoundation/CoreFoundation.h>

// hidSystem returns the IOHIDSystem service, or 0. Port 0 is the default
// main port on every macOS version (kIOMainPortDefault is macOS 12+).
static io_service_t hidSystem(void) {
	return IOServiceGetMatchingService(0, IOServiceMatching("IOHIDSystem"));
}

// hidIdleNanos stores the service's HIDIdleTime in *out. It returns 0 on
// success, 1 when the property is missing, 2 when it has another type.
static int hidIdleNanos(io_service_t svc, uint64_t *out) {
	CFTypeRef prop = IORegistryEntryCreateCFProperty(svc, CFSTR("HIDIdleTime"), kCFAllocatorDefault, 0);
	if (prop == NULL) {
		return 1;
	}
	int rc = 2;
	if (CFGetTypeID(prop) == CFNumberGetTypeID()) {
		int64_t v = 0;
		if (CFNumberGetValue((CFNumberRef)prop, kCFNumberSInt64Type, &v) && v >= 0) {
			*out = (uint64_t)v;
			rc = 0;
		}
	} else if (CFGetTypeID(prop) == CFDataGetTypeID() && CFDataGetLength((CFDataRef)prop) == sizeof(uint64_t)) {
		CFDataGetBytes((CFDataRef)prop, CFRangeMake(0, sizeof(uint64_t)), (UInt8 *)out);
		rc = 0;
	}
	CFRelease(prop);
	return rc;
}

static void releaseService(io_service_t svc) {
	IOObjectRelease(svc);
}
*/
import "C"

import "errors"

// hidSystemService returns the IOHIDSystem io_service_t.
func hidSystemService() (uint32, error) {
	svc := uint32(C.hidSystem())
	if svc == 0 {
		return 0, errors.New("no IOHIDSystem service in the I/O Registry")
	}
	return svc, nil
}

// hidIdleNanos reads HIDIdleTime of svc; rc is 0 on success, 1 when the
// property is missing, 2 when it is not a 64-bit number.
func hidIdleNanos(svc uint32) (ns uint64, rc int) {
	var out C.uint64_t
	rc = int(C.hidIdleNanos(C.io_service_t(svc), &out))
	return uint64(out), rc
}

// releaseService releases an io_service_t from hidSystemService.
func releaseService(svc uint32) {
	C.releaseService(C.io_service_t(svc))
}
