import FFmpegBridge
import Foundation

/// HDR (PQ or HLG, BT.2020) to SDR (BT.709/sRGB) for pictures meant to be looked at, like AVAssetImageGenerator does
/// by default. Runs on the small output picture only:
/// 1. the transfer's EOTF to display light in nits (PQ: SMPTE ST 2084; HLG: BT.2100 inverse OETF and OOTF at 1000
/// nits),
/// 2. BT.2020 → BT.709 primaries (linear), 3. an extended-Reinhard curve with SDR reference white at 203 nits
/// (BT.2408) and the peak at 1000 nits, 4. the sRGB curve.
enum ToneMapper {
    /// Peak luminance assumed for the source, in nits.
    static let sourcePeak = 1000.0
    /// Where SDR white sits in HDR (BT.2408).
    static let referenceWhite = 203.0

    /// 8-bit SDR RGB from 16-bit-per-channel HDR RGB (`width × height × 3` samples) encoded with `transfer`.
    static func map(_ rgb48: [UInt16], width: Int, height: Int, transfer: TransferKind) -> RGBImage {
        var out = [UInt8](repeating: 0, count: width * height * 3)
        let peak = sourcePeak / referenceWhite
        let lut = transferLUT(transfer)
        let srgb = srgbLUT()
        for i in 0..<(width * height) {
            // Linear light relative to SDR white.
            let r = lut[Int(rgb48[i * 3]) >> 4], g = lut[Int(rgb48[i * 3 + 1]) >> 4],
                b = lut[Int(rgb48[i * 3 + 2]) >> 4]
            // BT.2020 → BT.709 primaries.
            var r7 = 1.6605 * r - 0.5876 * g - 0.0728 * b
            var g7 = -0.1246 * r + 1.1329 * g - 0.0083 * b
            var b7 = -0.0182 * r - 0.1006 * g + 1.1187 * b
            r7 = max(0, r7); g7 = max(0, g7); b7 = max(0, b7)
            // Tone curve on luminance, colour ratios kept.
            let y = 0.2126 * r7 + 0.7152 * g7 + 0.0722 * b7
            if y > 0 {
                let mapped = y * (1 + y / (peak * peak)) / (1 + y)
                let k = mapped / y
                r7 *= k; g7 *= k; b7 *= k
            }
            out[i * 3] = srgb[min(4095, Int(min(1, r7) * 4095))]
            out[i * 3 + 1] = srgb[min(4095, Int(min(1, g7) * 4095))]
            out[i * 3 + 2] = srgb[min(4095, Int(min(1, b7) * 4095))]
        }
        return RGBImage(width: width, height: height, pixels: out)
    }

    /// Code value (12-bit index) → linear light relative to SDR reference white.
    static func transferLUT(_ t: TransferKind) -> [Double] {
        (0..<4096).map { i in
            let v = Double(i) / 4095
            switch t {
            case .pq:
                let m1 = 0.1593017578125, m2 = 78.84375, c1 = 0.8359375, c2 = 18.8515625, c3 = 18.6875
                let p = pow(v, 1 / m2)
                return 10000 * pow(max(p - c1, 0) / (c2 - c3 * p), 1 / m1) / referenceWhite
            case .hlg:
                let a = 0.17883277, b = 0.28466892, c = 0.55991073
                let scene = v <= 0.5 ? v * v / 3 : (exp((v - c) / a) + b) / 12
                // OOTF for a 1000-nit display: system gamma 1.2 (applied per channel: close enough for thumbnails).
                return sourcePeak * pow(scene, 1.2) / referenceWhite
            case .sdr:
                return v
            }
        }
    }

    static func srgbLUT() -> [UInt8] {
        (0..<4096).map { i in
            let x = Double(i) / 4095
            let v = x <= 0.0031308 ? 12.92 * x : 1.055 * pow(x, 1 / 2.4) - 0.055
            return UInt8(max(0, min(255, (v * 255).rounded())))
        }
    }
}
