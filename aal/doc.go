// Package aal implements the Agent Affordance Layer 0.1.1 (docs/protocol.md
// §28 to §44 and decisions 7 to 9): the manifest a site serves at
// /.well-known/agent-affordances.json and the per-page fragments it points
// to, their JSON Schema and validation, and the consumer gate that decides
// whether an agent may act, must ask a person, or must refuse. Publishers
// get its documents from package affordances ([affordances.Action].AAL) and
// need it only for the values they declare; agents and the tools that
// check sites (the CLI's lint) use the gate and the validation directly.
//
// # Validation
//
// [Schema] returns schema/aal-0.1.json (JSON Schema 2020-12), embedded.
// [ValidateFragment], [ValidateManifest] and [Validate] run it and check
// every rule of docs/protocol.md decision 7 again in code, with what a schema cannot
// say (refused characters whatever the regex dialect, unique ids,
// of >= step, the 32 KiB limit). Each [Problem] has a JSON Pointer and a
// sentence a person understands. [Fragment.Validate] and
// [Manifest.Validate] check a publisher's Go values.
//
// # The gate
//
// [Classify] tells what an affordance risks once the overrides of
// docs/protocol.md decision 8 have tightened what its publisher declared (a purchase
// is always destructive, irreversible and financial; a delete always
// irreversible; a submit that names money is financial). A [Gate] holds a
// person's [Grant]s (one class on one origin, optionally capped and
// expiring; [ParseGrant] reads them from a command line) and decides
// [Allow], [Ask] or [Refuse] for each affordance, with reasons.
//
// Everything a site writes in a fragment is untrusted: labels and ids are
// data, shown to a person through [Visible], never spliced into
// instructions for a model.
//
// The package imports only the standard library, the JSON Schema library
// (github.com/santhosh-tekuri/jsonschema/v6), golang.org/x/text for its
// messages and Unicode normalisation, and golang.org/x/net/idna for the
// hosts of origins. The confusables of Unicode TR39 that the gate reads a
// money word by are a table of its own, generated from Unicode's
// confusables.txt (`go generate ./aal`).
package aal
