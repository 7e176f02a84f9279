// Command controlplane runs a tierkit control plane over a set of gateways
// (examples/gateway) and serves its dashboard and API on a loopback port.
//
//	go run ./controlplane/cmd/controlplane -config plane.json
//	go run ./controlplane/cmd/controlplane -region eu:us -region us:eu \
//	    -gateway eu-1,eu,127.0.0.1:6380,127.0.0.1:6381,1 \
//	    -gateway us-1,us,127.0.0.1:6390,127.0.0.1:6391,1
//
// then open http://127.0.0.1:7070/ (the dashboard); clients follow
// http://127.0.0.1:7070/api/routes. The JSON config:
//
//	{"listen": "127.0.0.1:7070", "cadence": "500ms",
//	 "regions": [{"name": "eu", "backups": ["us"]}, {"name": "us", "backups": ["eu"]}],
//	 "gateways": [{"id": "eu-1", "region": "eu", "resp": "127.0.0.1:6380",
//	               "http": "127.0.0.1:6381", "cores": 1}],
//	 "direct": ["127.0.0.1:7000"],
//	 "allowed_hosts": ["localhost", "127.0.0.1", "::1"],
//	 "rollout": {"Rules": [{"Service": "app", "Percent": 50}]}}
//
// Flags override the file: -listen, -cadence, -direct, -allowed-hosts; -region
// and -gateway add to its lists. A bad flag or argument, a config file that is
// not one JSON object of known fields, each named once per object (in any
// case), in UTF-8 (no escape of half a surrogate pair), a cadence of 0 or a
// configuration the plane refuses is a usage error (exit 2); failing to
// listen or serve exits 1.
// examples/controlplane/README.md has the API and the dashboard.
//
// allowed_hosts lists the Host names the dashboard and API answer to (others
// get 403), a guard against DNS rebinding: without it, a web page whose domain
// an attacker resolves to 127.0.0.1 could read the plane and drain gateways
// from an operator's browser. The default is localhost, 127.0.0.1, ::1 and
// the listener's own IP (127.0.0.2, say, for -listen 127.0.0.2:7070) when
// -listen is, or resolves to, a loopback address, and any Host otherwise;
// ["*"] answers any Host on loopback too.
//
// # When not to use it
//
// Off loopback without an authenticating proxy in front: the dashboard and API
// have no authentication, and anyone who reaches them can drain gateways or
// change the rollout (it logs a warning when it listens beyond loopback). It
// reloads no file and keeps nothing on disk: a change made through the API is
// lost at a restart unless it is also in the config. It is one process, for
// one tier; package controlplane's doc says where the plane stops scaling.
//
// # Concurrency
//
// main's goroutine waits while two goroutines run: the HTTP server and the
// plane's Run loop, which ticks at the cadence (each tick polls the gateways
// concurrently and joins them). SIGINT or SIGTERM, or the server failing,
// shuts the server down (waiting up to 5 s for requests in progress, then
// closing their connections), then stops the loop and waits for it before
// exiting. A request's read is bounded
// (headers 5 s, the whole request 10 s) and idle connections close after 2
// minutes.
//
// # Stats
//
// It logs (text, standard error) the address it serves, its regions and
// gateway count at start, and the error it stops on. Everything else is served
// over HTTP: GET /api/state is the plane's State (per gateway health, weight,
// ring share and CPU; per region the balancer's class and the failover phase,
// signal and shares; per tenant requests and shed; a bounded history), which
// the dashboard at / draws; GET /api/routes is the published routes.
package main
