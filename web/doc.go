// Package web is MetaClaw's local web page: a Fiber server with templ
// pages for the dashboard, sessions and turns, skills, memory, scores,
// training, settings, first-run setup and the log tail.
//
// It reads and writes the database through store and store/config (the
// same validation as the CLI), serves the CSS and JavaScript embedded in
// assets, and reaches the running app only through the narrow Control and
// MemoryEditor interfaces declared here, which app implements. It may
// import store, store/config, assets and proxy/* subpackages; it never
// imports app. Only app (and its CLI, for `metaclaw open`) imports it.
//
// Security: the server refuses any request whose Host header is not one of
// its own loopback names (DNS rebinding); a person logs in with a one-time
// token (IssueLoginToken) that becomes an HttpOnly, SameSite=Strict session
// cookie; every state-changing request carries the session's CSRF token;
// secrets are never rendered. See the README's "Web page" section.
package web
