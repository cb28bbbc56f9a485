package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"time"

	"golang.org/x/term"
)

// weixinPlugin is the id of OpenClaw's WeChat channel plugin and channel.
//
// Facts (@tencent-weixin/openclaw-weixin 2.4.9 on npm, its README.md and
// openclaw.plugin.json; OpenClaw 2026.9.6 `openclaw plugins --help`,
// `plugins install --help`, `plugins list --help`, `channels login
// --help`, run here): the plugin id and channel are "openclaw-weixin";
// it installs with `openclaw plugins install <npm spec>` (here the bare
// name failed: OpenClaw resolved it to 2.4.8, which npm does not have;
// "@latest" and "@2.4.9" installed and enabled it, writing
// plugins.entries.openclaw-weixin.enabled = true); `openclaw plugins
// enable <id>` enables it; `openclaw plugins list --json` prints
// {plugins: [{id, enabled, status}]}; `openclaw channels login --channel
// openclaw-weixin` shows the QR code to scan; `openclaw gateway restart`
// makes the gateway load it. The seeds' installer package
// @tencent-weixin/openclaw-weixin-cli is no longer on npm (404 here).
const weixinPlugin = "openclaw-weixin"

// weixinInstallTimeout bounds the plugin install (1m52s here on 2 cores).
const weixinInstallTimeout = 10 * time.Minute

// weixinLoginTimeout bounds the QR login, as the reference does.
const weixinLoginTimeout = 5 * time.Minute

// configureAgent is what `metaclaw start` does once the proxy answers:
// it points the agent chosen as claw_type at proxyURL (changing nothing
// when it already is) and sets up WeChat. Nothing here stops MetaClaw:
// each problem is reported and the proxy keeps serving.
func configureAgent(env *Env, proxyURL string, relogin bool) {
	db, dir, cfg, err := loadConfig()
	if err != nil {
		fmt.Fprintf(env.Stderr, "warning: agent setup skipped: %v\n", err)
		return
	}
	rows, err := db.Settings(context.Background())
	db.Close()
	if err != nil {
		fmt.Fprintf(env.Stderr, "warning: agent setup skipped: %v\n", err)
		return
	}
	t := newTarget(dir, cfg)
	if u, err := url.Parse(proxyURL); err == nil && u.Host != "" {
		t.hostPort = u.Host
	}
	wechatChanged := false
	if cfg.WeChat.Enabled || relogin {
		wechatChanged = ensureWeChat(env, cfg.WeChat.PluginSpec, relogin)
	}
	_, chosen := rows["claw_type"]
	switch {
	case !chosen:
		fmt.Fprintln(env.Stdout, "No agent is set up to use MetaClaw yet: choose one with `metaclaw setup` (or `metaclaw config set claw_type openclaw`), or see `metaclaw connect`.")
	case cfg.ClawType == "none":
	default:
		changed := startConnect(env, t, cfg.ClawType)
		if changed && cfg.ClawType == "openclaw" {
			wechatChanged = false // connect restarted the gateway
		}
	}
	if wechatChanged {
		restartGateway(env)
	}
}

// startConnect runs connect for claw_type; it reports whether it changed
// the agent's settings.
func startConnect(env *Env, t target, agent string) bool {
	c := findConnector(agent)
	if c == nil {
		fmt.Fprintf(env.Stderr, "warning: claw_type %q has no connector\n", agent)
		return false
	}
	r := newConnectRun(env, t, agent)
	r.auto = true
	changed, err := c.connect(r)
	var ni *errNotInstalled
	switch {
	case errors.As(err, &ni):
		fmt.Fprintf(env.Stdout, "claw_type is %s, but %s; the proxy runs without it.\n", agent, ni.Error())
	case err != nil:
		fmt.Fprintf(env.Stderr, "warning: could not point %s at MetaClaw: %v\n", agent, err)
	}
	return changed
}

// ensureWeChat installs and enables OpenClaw's WeChat plugin when it is
// missing, and runs the QR login after a fresh install or when relogin
// asks for it. It reports whether the gateway needs a restart.
func ensureWeChat(env *Env, spec string, relogin bool) bool {
	if lookPath(env, "openclaw") == "" {
		fmt.Fprintf(env.Stdout, "wechat.enabled needs OpenClaw, which is not on PATH: install it (Node.js 24+) with `npm install -g openclaw`, then start MetaClaw again; MetaClaw then installs the WeChat plugin %s.\n", spec)
		return false
	}
	state, err := weixinState(env)
	if err != nil {
		fmt.Fprintf(env.Stderr, "warning: could not list OpenClaw's plugins: %v\n", err)
		return false
	}
	changed := false
	switch state {
	case "missing":
		fmt.Fprintf(env.Stdout, "Installing OpenClaw's WeChat plugin (%s)...\n", spec)
		if err := runOpenClawTool(env, weixinInstallTimeout, false, "plugins", "install", spec); err != nil {
			fmt.Fprintf(env.Stderr, "warning: could not install the WeChat plugin: %v\n  install it yourself with: openclaw plugins install %s\n", err, spec)
			return false
		}
		changed = true
		if !relogin {
			changed = weixinLogin(env, false) || changed
		}
	case "disabled":
		if err := runOpenClawTool(env, openclawTimeout, false, "plugins", "enable", weixinPlugin); err != nil {
			fmt.Fprintf(env.Stderr, "warning: could not enable the WeChat plugin: %v\n", err)
			return false
		}
		changed = true
		fmt.Fprintln(env.Stdout, "Enabled OpenClaw's WeChat plugin.")
	}
	if relogin {
		changed = weixinLogin(env, true) || changed
	}
	return changed
}

// weixinState is "missing", "disabled" or "enabled".
func weixinState(env *Env) (string, error) {
	out, err := runTool(env, "openclaw", "plugins", "list", "--json")
	if err != nil {
		return "", err
	}
	var list struct {
		Plugins []struct {
			ID      string `json:"id"`
			Enabled bool   `json:"enabled"`
		} `json:"plugins"`
	}
	if i := strings.IndexByte(out, '{'); i >= 0 {
		out = out[i:]
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		return "", fmt.Errorf("openclaw plugins list --json: %w", err)
	}
	for _, p := range list.Plugins {
		if p.ID == weixinPlugin {
			if p.Enabled {
				return "enabled", nil
			}
			return "disabled", nil
		}
	}
	return "missing", nil
}

// weixinLogin runs OpenClaw's QR login on the person's terminal. Without
// a terminal it only says how to log in, unless asked (--wechat-relogin).
func weixinLogin(env *Env, asked bool) bool {
	if f, ok := env.Stdin.(*os.File); !asked && (!ok || !term.IsTerminal(int(f.Fd()))) {
		fmt.Fprintln(env.Stdout, "Log in to WeChat from a terminal: metaclaw start --wechat-relogin (or: openclaw channels login --channel openclaw-weixin)")
		return false
	}
	fmt.Fprintln(env.Stdout, "Scan the QR code below with WeChat to log in:")
	if err := runOpenClawTool(env, weixinLoginTimeout, true, "channels", "login", "--channel", weixinPlugin); err != nil {
		fmt.Fprintf(env.Stderr, "warning: WeChat login did not finish: %v\n", err)
		return false
	}
	return true
}

// restartGateway restarts OpenClaw's gateway so it loads the plugin.
func restartGateway(env *Env) {
	if err := runOpenClawTool(env, openclawTimeout, false, "gateway", "restart"); err != nil {
		fmt.Fprintf(env.Stdout, "note: could not restart OpenClaw's gateway (%v); restart it yourself: openclaw gateway restart\n", firstLine(err.Error()))
		return
	}
	fmt.Fprintln(env.Stdout, "Restarted OpenClaw's gateway.")
}

// runOpenClawTool runs openclaw with args; with attach its input and output
// are the person's terminal (the QR code), else its output is captured.
func runOpenClawTool(env *Env, timeout time.Duration, attach bool, args ...string) error {
	if !attach {
		_, err := runToolTimeout(env, timeout, append([]string{"openclaw"}, args...)...)
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, lookPath(env, "openclaw"), args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = env.Stdin, env.Stdout, env.Stderr
	return cmd.Run()
}
