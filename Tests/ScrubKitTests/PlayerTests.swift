import Dispatch
import FFmpegBridge
import Foundation
import MediaTime
@testable import ScrubKit
import Synchronization
import Testing

/// A pipeline whose loading and seeks complete only when the test says.
final class ScriptedPipeline: PlayerPipeline, @unchecked Sendable {
    struct Seek {
        var time: MediaTime; var before: MediaTime; var after: MediaTime; var done: @Sendable (MediaTime?) -> Void
    }
    let info: PlayerMediaInfo?
    let seeks = Mutex<[Seek]>([])
    let autoComplete: Bool
    init(duration: MediaTime?, start: MediaTime = .zero, autoComplete: Bool = true) {
        info = duration.map {
            PlayerMediaInfo(
                start: start, duration: $0, hasVideo: false, frameDuration: MediaTime(value: 1, timescale: 30))
        }
        self.autoComplete = autoComplete
    }
    var loadDone: (@Sendable (Result<PlayerMediaInfo, MediaError>) -> Void)?
    func load(_ done: @escaping @Sendable (Result<PlayerMediaInfo, MediaError>) -> Void) {
        if let info { done(.success(info)) } else { loadDone = done }
    }
    func finishLoading(_ info: PlayerMediaInfo) { loadDone?(.success(info)) }
    func seek(
        to time: MediaTime, toleranceBefore: MediaTime, toleranceAfter: MediaTime,
        _ done: @escaping @Sendable (MediaTime?) -> Void
    ) {
        if autoComplete {
            done(time);
            seeks.withLock {
                $0.append(Seek(time: time, before: toleranceBefore, after: toleranceAfter, done: { _ in }))
            }; return
        }
        seeks.withLock { $0.append(Seek(time: time, before: toleranceBefore, after: toleranceAfter, done: done)) }
    }
    /// Completes the oldest uncompleted seek, landing at `at` (default: where it was asked).
    func completeSeek(_ index: Int, at: MediaTime? = nil) {
        let s = seeks.withLock { $0[index] }
        s.done(at ?? s.time)
    }
    func takeFrame(atOrBefore time: MediaTime) -> VideoFrame? { nil }
    func setOutputSize(width: Int, height: Int) {}
    var frameStatistics: (shown: Int, dropped: Int) { (0, 0) }
    func close() {}
}

/// Records observer callbacks on a serial queue; `drain()` waits for delivered ones.
final class Recorder: @unchecked Sendable {
    let queue = DispatchQueue(label: "test.observer")
    private let lock = Mutex<[Double]>([])
    func record(_ t: MediaTime) { lock.withLock { $0.append(t.seconds) } }
    var times: [Double] { queue.sync {}; return lock.withLock { $0 } }
    func reset() { queue.sync {}; lock.withLock { $0.removeAll() } }
}

func s(_ x: Double) -> MediaTime { MediaTime(seconds: x, preferredTimescale: 1000) }

@Suite struct PlayerTests {
    func makePlayer(duration: Double = 10, autoComplete: Bool = true) -> (Player, ManualClock, ScriptedPipeline) {
        let clock = ManualClock()
        let pipe = ScriptedPipeline(duration: s(duration), autoComplete: autoComplete)
        let p = Player(pipeline: pipe, clock: clock)
        p.flush()
        return (p, clock, pipe)
    }

    /// Advances in `step`s, letting the observer queue run after each, so every callback is seen.
    func advance(_ clock: ManualClock, _ player: Player, _ rec: Recorder, by total: Double, step: Double = 0.1) {
        var done = 0.0
        while done < total - 1e-9 {
            clock.advance(by: min(step, total - done))
            done += step
            player.flush()
            _ = rec.times
        }
    }

    @Test func readinessAndDuration() {
        let clock = ManualClock()
        let pipe = ScriptedPipeline(duration: nil)
        let p = Player(pipeline: pipe, clock: clock)
        #expect(p.status == .unknown)
        #expect(p.duration.isIndefinite)
        pipe.finishLoading(PlayerMediaInfo(start: .zero, duration: s(4), hasVideo: false))
        p.flush()
        #expect(p.status == .readyToPlay)
        #expect(p.duration == s(4))
    }

    @Test func periodicTimesThroughPlayPauseSeekPlay() {
        let (p, clock, _) = makePlayer()
        let rec = Recorder()
        _ = p.addPeriodicTimeObserver(forInterval: s(0.5), queue: rec.queue) { rec.record($0) }
        p.play()                                   // fires on start: 0
        advance(clock, p, rec, by: 1.2)            // 0.5, 1.0
        p.pause()                                  // fires on stop: 1.2
        _ = rec.times                              // (let it run, or the jump below would replace it)
        p.seek(to: s(5), toleranceBefore: .zero, toleranceAfter: .zero)  // time jump: 5
        p.flush()
        advance(clock, p, rec, by: 1)              // paused: nothing
        p.play()                                   // 5
        advance(clock, p, rec, by: 0.6)            // 5.5
        #expect(rec.times == [0, 0.5, 1.0, 1.2, 5, 5, 5.5])
        #expect(p.currentTime == s(5.6))
    }

    @Test func tinyIntervalIsCoalescedWhenTheQueueIsBlocked() {
        let (p, clock, _) = makePlayer()
        let rec = Recorder()
        _ = p.addPeriodicTimeObserver(forInterval: MediaTime(value: 1, timescale: 1000), queue: rec.queue) {
            rec.record($0)
        }
        let gate = DispatchSemaphore(value: 0)
        rec.queue.async { gate.wait() }            // the observer's queue is busy
        p.play()
        for _ in 0..<30 { clock.advance(by: 0.1) } // 3000 multiples of 1 ms
        p.flush()
        gate.signal()
        let times = rec.times
        #expect(times.count == 1, "one pending callback, not \(times.count)")
        #expect(times.first == 3.0, "carrying the latest time")
    }

    @Test func removedObserverGetsNoNewCallback() {
        let (p, clock, _) = makePlayer()
        let rec = Recorder()
        let token = p.addPeriodicTimeObserver(forInterval: s(0.5), queue: rec.queue) { rec.record($0) }
        let gate = DispatchSemaphore(value: 0)
        rec.queue.async { gate.wait() }
        p.play()                                   // a callback is now pending behind the gate
        p.removeTimeObserver(token)
        gate.signal()
        advance(clock, p, rec, by: 2)
        #expect(rec.times.isEmpty)
    }

    @Test func boundariesFireOnPlaybackNotOnSeeks() throws {
        let (p, clock, _) = makePlayer()
        let rec = Recorder()
        _ = try p.addBoundaryTimeObserver(forTimes: [s(2), s(4)], queue: rec.queue) { rec.record($0) }
        p.play()
        advance(clock, p, rec, by: 3)              // crosses 2
        p.seek(to: s(5))                           // jumps over 4: no callback
        p.flush()
        advance(clock, p, rec, by: 0.5)
        p.seek(to: s(3.5))
        p.flush()
        advance(clock, p, rec, by: 1)              // crosses 4
        #expect(rec.times == [2, 4])
        #expect(throws: MediaError.self) { try p.addBoundaryTimeObserver(forTimes: []) { _ in } }
    }

    @Test func endOfMediaPausesAndNotifies() {
        let (p, clock, _) = makePlayer(duration: 2)
        let ends = Recorder()
        let periodic = Recorder()
        _ = p.addEndOfMediaObserver(queue: ends.queue) { ends.record($0) }
        _ = p.addPeriodicTimeObserver(forInterval: s(1), queue: periodic.queue) { periodic.record($0) }
        p.play()
        advance(clock, p, periodic, by: 3)
        #expect(ends.times == [2])
        #expect(p.rate == 0)
        #expect(p.currentTime == s(2))
        // start, 1, then the multiple 2 and the stop at the end, merged (one pending per observer)
        #expect(periodic.times == [0, 1, 2])
    }

    @Test func endOfMediaLoops() {
        let (p, clock, _) = makePlayer(duration: 2)
        p.actionAtItemEnd = .loop
        let ends = Recorder()
        _ = p.addEndOfMediaObserver(queue: ends.queue) { ends.record($0) }
        p.play()
        advance(clock, p, ends, by: 2.5)
        #expect(ends.times == [2])
        #expect(p.rate == 1)
        #expect(abs(p.currentTime.seconds - 0.5) < 1e-6)
    }

    @Test func newerSeekFinishesTheOlderWithFalse() async {
        let (p, _, pipe) = makePlayer(autoComplete: false)
        let results = Mutex<[String: Bool]>([:])
        p.seek(to: s(2), toleranceBefore: .zero, toleranceAfter: .zero) { ok in results.withLock { $0["a"] = ok } }
        p.seek(to: s(7), toleranceBefore: .zero, toleranceAfter: .zero) { ok in results.withLock { $0["b"] = ok } }
        pipe.completeSeek(0, at: nil)              // the pipeline answers the old one late: ignored
        pipe.completeSeek(1)
        p.flush()
        p.callbackQueue.sync {}
        #expect(results.withLock { $0 } == ["a": false, "b": true])
        #expect(p.currentTime == s(7))
        #expect(!p.isSeeking)
    }

    @Test func looseSeekLandsWhereThePipelineDid() {
        let (p, _, pipe) = makePlayer(autoComplete: false)
        p.seek(to: s(7.3))                         // infinite tolerance
        #expect(p.currentTime == s(7.3))           // time jumps at once, held while seeking
        pipe.completeSeek(0, at: s(6))             // landed on a keyframe
        p.flush()
        #expect(p.currentTime == s(6))
    }

    @Test func sliderSeeksAreCoalesced() {
        let (p, _, pipe) = makePlayer(autoComplete: false)
        p.seek(toFraction: 0.1, dragging: true)
        p.seek(toFraction: 0.2, dragging: true)
        p.seek(toFraction: 0.3, dragging: true)
        p.seek(toFraction: 0.45, dragging: false)  // drag ends: exact
        #expect(pipe.seeks.withLock { $0.count } == 1, "one seek in flight")
        pipe.completeSeek(0)
        p.flush()
        p.callbackQueue.sync {}
        p.flush()
        let seeks = pipe.seeks.withLock { $0 }
        #expect(seeks.count == 2, "then only the latest target")
        #expect(seeks[0].time == s(1) && seeks[0].before.isPositiveInfinity)
        #expect(seeks[1].time == s(4.5) && seeks[1].before == .zero && seeks[1].after == .zero)
    }

    @Test func sliderFractionsAtEndsOutOfRangeAndBeforeReadiness() {
        let (p, _, pipe) = makePlayer()
        p.seek(toFraction: 0, dragging: false); p.flush()
        #expect(p.currentTime == .zero)
        p.seek(toFraction: 1, dragging: false); p.flush()
        #expect(p.currentTime == s(10))
        p.seek(toFraction: -4, dragging: false); p.flush()
        #expect(p.currentTime == .zero)
        p.seek(toFraction: 9, dragging: false); p.flush()
        #expect(p.currentTime == s(10))
        p.seek(toFraction: .nan, dragging: false); p.flush()
        #expect(p.currentTime == .zero)
        #expect(pipe.seeks.withLock { $0.count } == 5)

        let clock = ManualClock()
        let late = ScriptedPipeline(duration: nil)
        let q = Player(pipeline: late, clock: clock)
        q.seek(toFraction: 0.5, dragging: false)   // duration unknown yet: no crash, remembered
        q.flush()
        #expect(q.currentTime == .zero)
        late.finishLoading(PlayerMediaInfo(start: s(10), duration: s(4), hasVideo: false))
        q.flush()
        #expect(q.currentTime == s(12), "applied on load, on the file's own timeline")
    }

    @Test func droppedPlayerIsNotLeakedByItsObservers() {
        weak var weakPlayer: Player?
        var token: TimeObserverToken?
        do {
            let (p, clock, _) = makePlayer()
            token = p.addPeriodicTimeObserver(forInterval: s(0.5), queue: DispatchQueue(label: "x")) { _ in }
            p.play()
            clock.advance(by: 1)
            p.flush()
            weakPlayer = p
        }
        #expect(token != nil)
        #expect(weakPlayer == nil)
    }

    @Test func asyncSequenceOfPeriodicTimes() async {
        let (p, clock, _) = makePlayer()
        let stream = p.periodicTimes(forInterval: s(1))
        var it = stream.makeAsyncIterator()
        p.play()
        let first = await it.next()
        clock.advance(by: 1)
        p.flush()
        let second = await it.next()
        #expect(first == .zero)
        #expect(second == s(1))
    }

    @Test func frameStepUsesNominalFrameDuration() {
        let (p, _, pipe) = makePlayer()
        p.seek(to: s(1), toleranceBefore: .zero, toleranceAfter: .zero); p.flush()
        p.step(byFrames: 3); p.flush()
        #expect(p.currentTime == s(1.1))
        p.step(byFrames: -1); p.flush()
        #expect(abs(p.currentTime.seconds - (1.1 - 1.0 / 30)) < 1e-9)
        #expect(pipe.seeks.withLock { $0.last?.before } == .zero)
    }
}

@Suite struct PlayerSeekInteractionTests {
    @Test func directSeekReplacesASliderDragAndItsChase() {
        let clock = ManualClock()
        let pipe = ScriptedPipeline(duration: s(10), autoComplete: false)
        let p = Player(pipeline: pipe, clock: clock)
        p.flush()
        p.seek(toFraction: 0.1, dragging: true)
        p.seek(toFraction: 0.9, dragging: true)     // chase
        p.seek(to: s(3), toleranceBefore: .zero, toleranceAfter: .zero)
        #expect(pipe.seeks.withLock { $0.count } == 2)
        pipe.completeSeek(0)                          // the replaced slider seek answers late
        pipe.completeSeek(1)
        p.flush()
        #expect(pipe.seeks.withLock { $0.count } == 2, "the stale chase (0.9) is not issued")
        #expect(p.currentTime == s(3))
    }
}

/// The player on the real FFmpeg pipeline (bundled samples).
@Suite(.enabled(if: Corpus.samplesAvailable, "needs samples/"))
struct FilePlaybackTests {
    func ready(_ path: String) async -> Player {
        let p = Player(path: path, sound: nil)
        _ = await p.waitUntilReady()
        return p
    }

    func frame(_ p: Player, timeout: Double = 5) async -> VideoFrame? {
        let end = Date().addingTimeInterval(timeout)
        while true {   // (once more after the deadline: a starved task may wake late)
            if !p.isSeeking, let f = p.frameForDisplay() { return f }
            if Date() >= end { return nil }
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
    }

    @Test func exactSeekDeliversThatFrameAtTheDisplaySize() async {
        let p = await ready(Corpus.sample("h264_gop2s.mp4"))
        #expect(p.status == .readyToPlay)
        #expect(p.duration == MediaTime(value: 8, timescale: 1))
        p.setVideoOutputSize(width: 64, height: 36)
        let t = MediaTime(value: 25, timescale: 10)
        #expect(await p.seek(to: t, toleranceBefore: .zero, toleranceAfter: .zero))
        let f = await frame(p)
        #expect(f != nil)
        #expect(
            f.map { $0.time <= t && $0.time > t - MediaTime(value: 1, timescale: 24) } == true,
            "\(String(describing: f?.time))")
        #expect(f?.image.width == 64 && f?.image.height == 36)
    }

    @Test func rotatedClipComesUpright() async {
        let p = await ready(Corpus.sample("rotated90.mp4"))
        #expect(p.mediaInfo?.displayWidth == 360 && p.mediaInfo?.displayHeight == 640)
        p.setVideoOutputSize(width: 36, height: 64)
        _ = await p.seek(to: MediaTime(value: 1, timescale: 1), toleranceBefore: .zero, toleranceAfter: .zero)
        let f = await frame(p)
        #expect(f?.image.width == 36 && f?.image.height == 64)
    }

    @Test func aJPEGIsDecodedAsThumbDecodesIt() async throws {
        // Through the front door's still routing (libjpeg-turbo, shrink-on-load): the player shows the very pixels a
        // thumbnail of that size has — FFmpeg's full-size decode and scaling would give others.
        let path = Corpus.sample("large_6000x4000.jpg")
        let p = await ready(path)
        #expect(p.duration == .zero && p.mediaInfo?.displayWidth == 6000 && p.mediaInfo?.displayHeight == 4000)
        p.setVideoOutputSize(width: 150, height: 100)
        #expect(await p.seek(to: .zero, toleranceBefore: .zero, toleranceAfter: .zero))
        let shown = try #require(await frame(p))
        var gen = ThumbnailGenerator(path: path)
        gen.maximumSize = .box(width: 150, height: 100)
        gen.allowsUpscaling = true
        let thumb = try gen.image(at: .absolute(.zero))
        #expect(shown.image.width == 150 && shown.image.height == 100)
        #expect(shown.image.pixels == thumb.image.pixels, "the same pixels as thumb's")
    }

    @Test func stillImageHasAZeroLengthTimeline() async {
        let p = await ready(Corpus.sample("image.png"))
        #expect(p.duration == .zero)
        #expect(p.mediaInfo?.hasVideo == true)
    }

    @Test func badFileFails() async {
        let p = Player(path: "/nonexistent/x.mp4", sound: nil)
        let status = await p.waitUntilReady()
        guard case .failed(let e) = status else { Issue.record("expected failure, got \(status)"); return }
        #expect(e.kind == .notFound)
    }
}
