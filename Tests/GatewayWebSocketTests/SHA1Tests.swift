@testable import GatewayWebSocket
import Testing

@Suite("SHA-1 and base64")
struct SHA1Tests {
    func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    @Test("FIPS 180 test vectors")
    func vectors() {
        #expect(hex(SHA1.digest(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(hex(SHA1.digest([])) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        #expect(hex(SHA1.digest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))) == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
        #expect(hex(SHA1.digest([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    @Test("block boundaries: 55, 56, 63, 64 and 65 bytes")
    func boundaries() {
        // Digests computed with a reference implementation (Python's hashlib).
        let expected = [
            55: "c1c8bbdc22796e28c0e15163d20899b65621d65a",
            56: "c2db330f6083854c99d4b5bfb6e8f29f201be699",
            63: "03f09f5b158a7a8cdad920bddc29b81c18a551f5",
            64: "0098ba824b5c16427bd7a1122a5a442a25ec644d",
            65: "11655326c708d70319be2610e8a57d9a5b959d3b",
        ]
        for (count, digest) in expected {
            #expect(hex(SHA1.digest([UInt8](repeating: UInt8(ascii: "a"), count: count))) == digest, "\(count) bytes")
        }
    }

    @Test("RFC 4648 base64 vectors, both ways")
    func base64() {
        let vectors = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            #expect(Base64.encode(Array(plain.utf8)) == encoded)
            #expect(Base64.decode(encoded) == Array(plain.utf8))
        }
        #expect(Base64.encode([0xFF, 0xEF, 0xBE]) == "/+++")
    }

    @Test("base64 that is not canonical is refused")
    func base64Refusals() {
        for bad in ["Zg=", "Zg", "Z===", "Zh==", "Zm9=", "Zg==Zg==", "Zm 9", "Zm9v\u{0}", "=Zm9", "Zm=v"] {
            #expect(Base64.decode(bad) == nil, "\(bad)")
        }
    }
}
