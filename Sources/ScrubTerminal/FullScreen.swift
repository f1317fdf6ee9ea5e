import Foundation
import ScrubKit

/// The one way a full-screen program (`play`, `browse`) takes the terminal and gives it back: it refuses a redirected
/// output and a forced graphics mode the terminal cannot show (it would print escape codes as text), enters full-screen
/// mode (restored on return, on errors and — registered with ``ProcessSignals``, which the program took over at its
/// start — on a signal, kitty's picture files removed), chooses the graphics, and turns SIGWINCH into a call of
/// `resized`. Nested (a player from `browse`), each level registers and removes its own: leaving one leaves the
/// signals as the level above had them.
enum FullScreen {
    /// Runs `body` with the graphics chosen, full screen on `terminal`, for `program` (named in the refusal);
    /// `renderer` is what to clear the pictures of when it ends.
    static func run(
        _ program: String, terminal: RawTerminal, forced: GraphicsKind?, renderer: @escaping () -> FrameRenderer,
        resized: @escaping @Sendable () -> Void, _ body: (GraphicsChoice) throws -> Int32
    ) throws -> Int32 {
        guard TerminalOutput.isTerminal(1) else {
            throw TerminalError("scrubkit \(program) needs a terminal (its standard output must not be redirected)")
        }
        let env = ProcessInfo.processInfo.environment
        if let forced, let why = GraphicsDetection.refusal(forcing: forced, env: env) { throw TerminalError(why) }
        // (Registered first: a signal right after the screen is set up finds it to put back.)
        let ending = ProcessSignals.atExit { terminal.restore(); KittyRenderer.removeAllLeftovers() }
        do { try terminal.enter(mouse: true) } catch { ending.cancel(); throw error }
        defer {
            let r = renderer()
            terminal.write(r.clearTiles()); terminal.restore(); r.removeLeftovers()
            ending.cancel()
            if terminal.input > 0 { close(terminal.input) }   // the /dev/tty opened for keys
        }
        // The terminal is asked only with the keyboard ours (in the background its answers would reach the shell).
        let choice = GraphicsDetection.choose(
            forced: forced, env: env, keyboard: terminal.hasKeyboard ? terminal.input : nil)
        let resizes = ProcessSignals.onResize(resized)
        defer { resizes.cancel() }
        return try body(choice)
    }
}
