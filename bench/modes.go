package bench

import "context"

// The modes' starters, for Run's list of modes: each starts its mode once
// for a whole run of the bench. A nil starter is a mode not built yet.
var (
	startAffordances modeStarter = func(context.Context, *Options) (Mode, func() error, error) {
		return AffordancesMode{}, func() error { return nil }, nil
	}
	startScreenshot modeStarter = func(ctx context.Context, _ *Options) (Mode, func() error, error) {
		return startScreenshotMode(ctx)
	}
	startAxtree modeStarter = startAXTreeMode
	startMCP    modeStarter = func(context.Context, *Options) (Mode, func() error, error) {
		return MCPMode{}, func() error { return nil }, nil
	}
	startPlaywrightMCP       modeStarter = startPlaywrightMCPMode
	startPlaywrightMCPLean   modeStarter = startPlaywrightMCPLeanMode
	startPlaywrightMCPWebMCP modeStarter = startPlaywrightMCPWebMCPMode
	startWebMCP              modeStarter = func(ctx context.Context, _ *Options) (Mode, func() error, error) {
		return startWebMCPMode(ctx)
	}
)
