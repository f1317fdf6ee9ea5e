import Foundation
import Testing
@testable import MediaTime

/// What a user types, and how times are shown and encoded.
@Suite struct ParsingAndFormattingTests {
    func abs(_ s: String) throws -> MediaTime {
        guard case .absolute(let t) = try TimeExpression(parsing: s) else {
            throw TimeExpressionError(input: s, reason: "not absolute")
        }
        return t
    }

    @Test(arguments: [("12.5", 12.5), ("12.5s", 12.5), ("90ms", 0.09), ("1:02:03.250", 3723.25), ("1:02", 62.0),
                      ("0", 0.0), (".5", 0.5), ("250us", 0.00025), (" 7s ", 7.0)])
    func absoluteForms(text: String, seconds: Double) throws {
        #expect(try abs(text).seconds == seconds)
    }

    @Test func decimalsAreExact() throws {
        let t = try abs("12.5")
        #expect(t == MediaTime(value: 25, timescale: 2) && !t.hasBeenRounded)
    }

    @Test func decimalsBeyondNanosecondsRoundToTheNearest() throws {
        // A float printed by a script: rounded to nanoseconds (halves up), not refused.
        #expect(try abs("303.36666699999995") == MediaTime(value: 303_366_667_000, timescale: 1_000_000_000))
        #expect(try abs("1.0000000004") == MediaTime(value: 1_000_000_000, timescale: 1_000_000_000))
        #expect(try abs("1.0000000005") == MediaTime(value: 1_000_000_001, timescale: 1_000_000_000))
        #expect(try abs("0.9999999999") == MediaTime(value: 1, timescale: 1))
    }

    @Test func percentAndFraction() throws {
        #expect(try TimeExpression(parsing: "50%") == .fraction(numerator: 1, denominator: 2))
        #expect(try TimeExpression(parsing: "12.5%") == .fraction(numerator: 1, denominator: 8))
        #expect(try TimeExpression(parsing: "3/4") == .fraction(numerator: 3, denominator: 4))
    }

    @Test func resolveAgainstStartAndDuration() throws {
        let e = try TimeExpression(parsing: "50%")
        let t = e.resolve(start: MediaTime(value: 10, timescale: 1), duration: MediaTime(value: 3, timescale: 1))
        #expect(t.seconds == 11.5)
        #expect(!e.resolve(duration: .indefinite).isValid)
        #expect(
            try TimeExpression(parsing: "2s").resolve(start: MediaTime(value: 10, timescale: 1), duration: .indefinite)
                .seconds == 12)
    }

    @Test(arguments: ["", "abc", "1:2:3:4", "-5", "5x", "1:75", "150%", "5/4", "1/0", "1.2.3", "1.0000000001x"])
    func errorsNameTheInput(text: String) {
        do {
            _ = try TimeExpression(parsing: text)
            Issue.record("'\(text)' should not parse")
        } catch let e as TimeExpressionError {
            #expect(e.description.contains("'\(text)'"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func clockFormatting() {
        #expect(MediaTime(value: 3723250, timescale: 1000).formatted(fractionDigits: 3) == "1:02:03.250")
        #expect(MediaTime(value: 59999, timescale: 1000).formatted() == "0:59")
        #expect(MediaTime.indefinite.formatted() == "--:--")
        #expect(MediaTime(value: -90, timescale: 1).formatted() == "-1:30")
    }

    @Test func descriptions() {
        #expect(MediaTime(value: 3, timescale: 2).description == "1.5 s (3/2)")
        #expect(MediaTime.invalid.description == "invalid")
        #expect(MediaTime.indefinite.description == "indefinite")
        #expect(MediaTime.negativeInfinity.description == "-infinity")
    }

    @Test func codableRoundTrip() throws {
        let times: [MediaTime] = [MediaTime(value: 1001, timescale: 30000), .indefinite, .positiveInfinity, .invalid,
                                  MediaTime(value: 5, timescale: 3, flags: [.valid, .hasBeenRounded], epoch: 4)]
        let data = try JSONEncoder().encode(times)
        let back = try JSONDecoder().decode([MediaTime].self, from: data)
        #expect(back == times)
        #expect(back.last?.epoch == 4 && back.last?.hasBeenRounded == true)
    }
}
