// Package control is the running app as the people and programs that
// steer it see it. It turns the services' own types into theirs:
//
//   - Status, the snapshot the tray, the CLI, the web page and /healthz
//     show (Snapshot reads it from the services);
//   - Web, the web page's backend: web.Control over the app and its
//     learning services, with the memory editor and the skill explainer;
//   - TrainStep, the proxy's POST /v1/admin/train_step, which asks the
//     trainer through the database as `metaclaw train-step` does.
//
// The app builds these from its services and hands them on; app/cli reads
// Status. It sits beside app/cli above the services (proxy, learner, web,
// idle) and imports neither app nor app/cli: what it needs of the running
// app is the App interface, which *app.App implements.
package control
