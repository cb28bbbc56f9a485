package proxy_test

// BenchmarkHopFloor measures the least any proxy built like this one can
// cost: a Fiber handler that copies the body, sends it to the fake with
// Go's HTTP client (or, for comparison, fasthttp's), reads the answer and
// sends it back, with no checks, no session, no cancellation, no record.
// Against BenchmarkDirect it gives the throughput left for the proxy's own
// work:
//
//	go test -run '^$' -bench '^BenchmarkHopFloor$' -benchtime 5000x -count 3 ./proxy/

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
)

// startFloor starts the minimal proxy in front of upBase and returns its
// base URL; fast picks fasthttp's client instead of net/http's.
func startFloor(b *testing.B, upBase string, fast bool) string {
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	tr := &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 128, IdleConnTimeout: time.Minute, DisableCompression: true}
	hc := &http.Client{Transport: tr}
	fc := &fasthttp.Client{MaxConnsPerHost: 256}
	app.Post("/v1/chat/completions", func(c *fiber.Ctx) error {
		body := bytes.Clone(c.Body())
		if fast {
			req := fasthttp.AcquireRequest()
			resp := fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			req.SetRequestURI(upBase + "/v1/chat/completions")
			req.Header.SetMethod("POST")
			req.Header.SetContentType("application/json")
			req.SetBody(body)
			if err := fc.Do(req, resp); err != nil {
				return err
			}
			c.Status(resp.StatusCode())
			c.Set("Content-Type", string(resp.Header.ContentType()))
			return c.Send(bytes.Clone(resp.Body()))
		}
		req, _ := http.NewRequestWithContext(c.UserContext(), "POST", upBase+"/v1/chat/completions", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		out, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		c.Status(resp.StatusCode)
		c.Set("Content-Type", resp.Header.Get("Content-Type"))
		return c.Send(out)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go app.Listener(ln)
	b.Cleanup(func() { app.Shutdown() })
	return "http://" + ln.Addr().String()
}

func BenchmarkHopFloor(b *testing.B) {
	for _, client := range []string{"nethttp", "fasthttp"} {
		b.Run(client+"-c32", func(b *testing.B) {
			_, up := startBenchUpstream(b)
			base := startFloor(b, up, client == "fasthttp")
			benchLoad(b, benchTarget{url: base + "/v1/chat/completions", client: benchClient(b), body: benchBody(false)}, 32, false)
		})
	}
}
