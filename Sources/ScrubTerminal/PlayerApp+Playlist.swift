import Foundation
import MediaTime
import ScrubKit
import Locking

/// A playlist in `scrubkit play`: each entry opened with a player of its own, played until the user quits or moves
/// (`<`, `>`, Enter) or it ends (then the next starts); an entry that cannot be played is skipped with a notice and
/// a line for after the screen is restored.
extension PlayerApp {
    /// Plays the entries from the current one until the user quits, or the last entry fails to open.
    func playAll() throws -> Int32 {
        var step = 1, failedInARow = 0, first = true
        while !quit.load(ordering: .relaxed) {
            if !first { switchPlayer() }
            first = false
            if let problem = openCurrent() {
                guard playlist.entries.count > 1 else { throw TerminalError(problem.reason) }
                failures.append("scrubkit: \(problem)")
                failedInARow += 1
                notice.withLock {
                    $0 = (
                        "skipped \(playlist.position) \(BatchNaming.fileName(path)): \(problem.reason)",
                        player.clock.now() + 6
                    )
                }
                guard failedInARow < playlist.entries.count else { break }
                // (Going back past a first entry that cannot be played: on to the one we came from.)
                if !playlist.advance(by: step) {
                    guard step < 0 else { break }
                    step = 1
                    guard playlist.advance(by: step) else { break }
                }
                continue
            }
            failedInARow = 0
            guard let move = playCurrent() else { break }
            step = move
            _ = playlist.advance(by: move)
        }
        return failures.isEmpty ? 0 : 1
    }

    /// Replaces the finished entry's player with one for the current entry (the volume, mute and speed kept, as
    /// mpv keeps them) and forgets what belonged to the last one.
    func switchPlayer() {
        let (volume, muted, scrubSound) = (player.volume, player.isMuted, player.playsScrubSound)
        player.pause()
        loudnessScan?.cancel()
        loudnessScan = nil
        hover?.close()
        hover = nil
        terminal.write(renderer.clear())
        renderer.removeLeftovers()
        loudness = Locked(LoudnessStrip(count: PlayerApp.loudnessBuckets))
        player = PlayerApp.makePlayer(for: path, options: options, strip: loudness)
        (player.volume, player.isMuted, player.playsScrubSound) = (volume, muted, scrubSound)
        (showsLoudness, layout.hasLoudnessStrip) = (false, false)
        (hoverPreview, lastImage, lastImageTime, lastImageUnpainted) = (HoverPreview(), nil, nil, false)
        loopMarks = LoopMarks()
        shownTime = nil
        subtitleDrawn = nil
        entrySerial += 1
        requestedMove = nil
        resized.store(true, ordering: .relaxed)
    }

    /// Waits until the current entry is ready (its player's one open of the file) and sets up for it; nil when it
    /// plays, else why not.
    func openCurrent() -> MediaError? {
        if case .failed(let e) = player.waitUntilReady(timeout: 30) { return e }
        let info = player.mediaInfo
        renderer = (info?.hasVideo ?? false) ? pictureRenderer : NoGraphicsRenderer()
        composer = PlayerFrameComposer(renderer: renderer, color: TerminalOutput.colorAllowed(1))
        if info?.hasAudio == true, info?.duration.isNumeric == true {
            startLoudness(streamNumber: options.sound?.streamNumber)
        }
        player.actionAtItemEnd = options.loop ? .loop : .pause
        setUpSubtitles()
        let serial = entrySerial
        _ = player.addEndOfMediaObserver { [weak self] _ in self?.endedEntry.store(serial, ordering: .relaxed) }
        return nil
    }

    /// Plays the current entry until the user quits (nil) or moves, or it ends with an entry after it: how far to
    /// move then.
    func playCurrent() -> Int? {
        let info = player.mediaInfo
        player.play()
        if rateIndex != 2 { player.rate = rates[rateIndex] }
        while !quit.load(ordering: .relaxed) {
            let began = player.clock.now()
            handleResize(info)
            for e in events.withLock({ let x = $0; $0.removeAll(); return x }) { handle(e, info) }
            if let move = requestedMove { return move }
            if endedEntry.load(ordering: .relaxed) == entrySerial, !options.loop,
               playlist.loops || playlist.index + 1 < playlist.entries.count {
                return 1
            }
            draw(info)
            // A refresh every 16 ms, the time drawing took included (a fixed pause after a picture that took 25 ms
            // to encode and write held a 30 fps video to 24 pictures a second); 2 ms at least, for the keys.
            let spent = player.clock.now() - began
            usleep(UInt32(max(0.002, 0.016 - spent) * 1_000_000))
        }
        return nil
    }

    /// The status line's `2/14 name` ("" for a single file).
    var entryLabel: String {
        guard playlist.entries.count > 1 else { return "" }
        let name = BatchNaming.fileName(path)
        return playlist.position + " " + (name.count > 40 ? String(name.prefix(39)) + "…" : name)
    }
}
