// Package aal implements the Agent Affordance Layer 0.1.1 (seed 003 and
// CLARIFICATIONS 7-9): the manifest a site serves at
// /.well-known/agent-affordances.json and the per-page fragments it points
// to, their JSON Schema (schema/aal-0.1.json, embedded) and validation, and
// the consumer gate that decides whether an agent may act, must ask a
// person, or must refuse.
//
// Everything a site writes in a fragment is untrusted: labels and ids are
// data, shown to a person through [Visible], never spliced into
// instructions for a model.
//
// The package imports only the standard library and the JSON Schema
// library.
package aal
