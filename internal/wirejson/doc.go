// Package wirejson holds the fast paths of the wire format: reading a
// call's body ([ReadBody]) and checking it in one pass ([ScanCall]),
// decoding an action's input by a plan per type ([DecodePlanOf]), checked
// against its schema's fast path as it reads it ([DecodePlan.DecodeChecked],
// internal/schema's Rule), and writing JSON without encoding/json's
// reflection ([AppendString], [AppendValue], [AppendObject]).
//
// Each answers what encoding/json answers, and its tests hold it there:
// the encoders write json.Marshal's bytes, a plan decodes as json.Unmarshal
// does or declines, a checked plan takes only what its schema accepts, and
// ScanCall refuses what the decoder it replaced
// refused, with the same message (the root package's tests compare the
// two). It knows no type of the protocol; the root package's encoders of
// its documents build on it. It makes no promise beyond this module.
package wirejson
