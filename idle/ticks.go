package idle

import "time"

// tickElapsed returns the time from the millisecond tick count last to the
// tick count now, both read from a 32-bit counter that wraps every 49.7
// days (Windows' GetTickCount and LASTINPUTINFO.dwTime). Unsigned
// subtraction modulo 2^32 gives the right answer across one wrap, so the
// result is exact for any idle time shorter than 49.7 days.
//
// It lives in a file without a build tag so its wraparound is tested on
// every OS.
func tickElapsed(now, last uint32) time.Duration {
	return time.Duration(now-last) * time.Millisecond
}
