package app

import (
	"context"
	"errors"
	"net"
	"strconv"

	"github.com/metaclaw/metaclaw/app/control"
	"github.com/metaclaw/metaclaw/store/config"
	"github.com/metaclaw/metaclaw/web"
)

// webControl is the app as the web page sees it.
func (a *App) webControl() *control.Web {
	return &control.Web{App: a, DB: a.db, Home: a.opts.Home, Version: a.opts.Version, Logger: a.log,
		Learning: a.learn, TrainingWindows: a.windows}
}

// startWeb binds the web page on web.host:web.port and runs it as a
// service. A page that cannot bind (the port is taken) is logged and left
// out: the proxy and learning go on without it, and WebURL stays empty.
func (a *App) startWeb(ctx context.Context, cfg config.Config) {
	srv := web.New(a.webControl().Options(cfg.Web.Host))
	addr := net.JoinHostPort(cfg.Web.Host, strconv.Itoa(cfg.Web.Port))
	if err := srv.Listen(addr); err != nil {
		a.log.Error("web page not started; set web.port to a free port", "err", err)
		return
	}
	a.web = srv
	a.goService(ctx, "web", srv.Serve)
	a.log.Info("web page listening", "url", srv.URL())
}

// WebURL returns the web page's base URL, "" when it is not running.
func (a *App) WebURL() string {
	if a.web == nil {
		return ""
	}
	return a.web.URL()
}

// WebLoginURL returns a one-time login URL for the web page (the tray's
// Open MetaClaw); it is valid for web.LoginTTL and only once.
func (a *App) WebLoginURL(ctx context.Context) (string, error) {
	if a.web == nil {
		return "", errors.New("the web page is not running (see the log)")
	}
	return a.web.LoginURL(ctx)
}
