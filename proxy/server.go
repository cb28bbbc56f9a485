// Package proxy is MetaClaw's hot path: the Fiber server that agents call
// instead of their LLM provider. It owns the routes, authentication, the
// upstream client, the SSE relay, injection and turn capture. Wire formats
// and translation live in proxy/openai and proxy/anthropic (pure, no
// Fiber). It declares the small interfaces it needs (Recorder, Injector)
// and imports store and store/config only; app wires it up.
package proxy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/metaclaw/metaclaw/store/config"
)

// Options configures a Server.
type Options struct {
	Config config.Config
	Logger *slog.Logger
	// Health returns extra fields for GET /healthz (pid, mode, version...).
	Health func() map[string]any
}

// Server is the proxy's HTTP server.
type Server struct {
	opts Options
	log  *slog.Logger
	app  *fiber.App
	ln   net.Listener
}

// New builds a server; Listen binds it and Serve runs it.
func New(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, log: opts.Logger}
	s.app = fiber.New(fiber.Config{
		DisableStartupMessage: true,
		BodyLimit:             opts.Config.Proxy.MaxBodyBytes,
		ReadTimeout:           5 * time.Minute,
		IdleTimeout:           2 * time.Minute,
		AppName:               "metaclaw",
	})
	s.app.Get("/healthz", s.healthz)
	return s
}

func (s *Server) healthz(c *fiber.Ctx) error {
	body := map[string]any{"status": "ok", "service": "metaclaw"}
	if s.opts.Health != nil {
		for k, v := range s.opts.Health() {
			body[k] = v
		}
	}
	return c.JSON(body)
}

// Listen binds the listening socket, so that an address in use is reported
// before anything else starts.
func (s *Server) Listen(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("proxy listen on %s: %w", addr, err)
	}
	s.ln = ln
	return nil
}

// Addr returns the bound address, e.g. "127.0.0.1:30000".
func (s *Server) Addr() string {
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}

// Serve answers requests until ctx is cancelled, then stops accepting and
// lets in-flight requests finish for up to grace.
func (s *Server) Serve(ctx context.Context, grace time.Duration) error {
	if s.ln == nil {
		return errors.New("proxy: Serve before Listen")
	}
	errc := make(chan error, 1)
	go func() { errc <- s.app.Listener(s.ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("proxy serve: %w", err)
	case <-ctx.Done():
	}
	if err := s.app.ShutdownWithTimeout(grace); err != nil {
		s.log.Warn("proxy shutdown", "err", err)
	}
	<-errc
	return nil
}
