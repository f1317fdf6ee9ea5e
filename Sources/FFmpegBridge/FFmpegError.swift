import CFFmpeg

/// An FFmpeg call failed: which call, FFmpeg's code and its message.
public struct FFmpegError: Error, Sendable, CustomStringConvertible {
    /// The FFmpeg error code (negative AVERROR) or 0 when the failure was not an FFmpeg return code.
    public var code: Int32
    /// What was being done, e.g. "open input".
    public var operation: String
    /// FFmpeg's text for `code` (or our own text when `code` is 0).
    public var message: String

    init(_ code: Int32, _ operation: String) {
        self.code = code
        self.operation = operation
        self.message = FFmpegError.describe(code)
    }

    init(operation: String, message: String) {
        self.code = 0
        self.operation = operation
        self.message = message
    }

    /// `operation: message`, as FFmpeg words it.
    public var description: String { "\(operation): \(message)" }

    /// True for "invalid data" style failures (corrupt input).
    public var isInvalidData: Bool { code == scrub_averror_invaliddata() }
    /// True for end of file.
    public var isEndOfFile: Bool { code == scrub_averror_eof() }

    /// What kind of failure the code stands for, for messages a user understands.
    public enum Cause: Sendable {
        /// Corrupt data, or a decoder that rejects the input outright ("Invalid data", "Invalid argument",
        /// "Operation not permitted", "Generic error in an external library": what decoders return for damaged input).
        case damaged
        /// A feature FFmpeg does not implement ("patch welcome").
        case unsupportedFeature
        case outOfMemory
        case endOfFile
        /// A read failure of the file itself.
        case io
        case other
    }

    /// The HTTP status FFmpeg's HTTP client failed with (400, 401, 403, 404; 499 = another 4xx, 599 = a 5xx), or nil.
    public var httpStatus: Int? {
        let status = scrub_averror_http_status(code)
        return status == 0 ? nil : Int(status)
    }

    /// The kind of failure the code stands for.
    public var cause: Cause {
        switch code {
        case scrub_averror_invaliddata(), scrub_averror(EINVAL), scrub_averror(EPERM), scrub_averror_external(),
             scrub_averror_bug(), scrub_averror_bug2():
            return .damaged
        case scrub_averror_patchwelcome(): return .unsupportedFeature
        case scrub_averror_enomem(): return .outOfMemory
        case scrub_averror_eof(): return .endOfFile
        case scrub_averror(EIO): return .io
        default: return .other
        }
    }

    static func describe(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        if av_strerror(code, &buffer, buffer.count) < 0 { return "error \(code)" }
        return string(fromCBuffer: buffer)
    }
}

/// The NUL-terminated text a C function wrote into `buffer`.
func string(fromCBuffer buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Throws an ``FFmpegError`` when an FFmpeg return value is negative; returns it otherwise.
@discardableResult
func check(_ result: Int32, _ operation: @autoclosure () -> String) throws -> Int32 {
    if result < 0 { throw FFmpegError(result, operation()) }
    return result
}
