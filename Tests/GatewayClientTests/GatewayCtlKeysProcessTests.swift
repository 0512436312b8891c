import Foundation
import GatewayTestSupport
import Testing

/// `gatewayctl keys` as an operator runs it, against a `reader-gateway` process: a read-only
/// key reads the fleet (`readers list`, `owners`, `history`, `watch`) and is refused every
/// change with the permission it lacks (exit 77); a rolled key's old secret is refused after
/// its overlap with the reason; a revoked key is refused at once.
@Suite("gatewayctl keys")
struct GatewayCtlKeysProcessTests {
    @Test func aReadOnlyKeyReadsTheFleetAndIsRefusedEveryChangeAndARolledSecretEndsWithItsOverlap() async throws {
        let gateway = try await WalkthroughGateway.start()
        do {
            let environment = gateway.environment
            func ctl(_ arguments: [String], key: String? = nil) async throws -> (status: Int32?, output: [String], error: String) {
                var environment = environment
                if let key { environment["GATEWAYCTL_SECRET_KEY"] = key }
                let process = try await ChildProcess.start("gatewayctl", arguments, environment: environment)
                let status = await process.waitForExit()
                return (status, process.output, process.standardError)
            }
            let location = try #require(try await ctl(["locations", "create", "Front"]).output.first)
            let registered = try await ctl(["--json", "readers", "register", "--serials", "RO-0001", "--label-prefix", "R", "--location", location, "--device-type", "simulated_wisepos_e"])
            #expect(registered.status == 0, "\(registered.error)")
            let reader = try #require(registered.output.joined().firstMatch(of: /tmr_[0-9A-Za-z]+/).map { String($0.output) })

            let created = try await ctl(["--json", "keys", "create", "wall", "dashboard", "--read-only"])
            #expect(created.status == 0, "\(created.error)")
            let document = try #require(try JSONSerialization.jsonObject(with: Data(created.output.joined().utf8)) as? [String: Any])
            let readOnly = try #require(document["secret"] as? String)
            #expect(readOnly.hasPrefix("sk_"))

            // Reads work.
            for arguments in [["readers", "list"], ["owners"], ["history", reader], ["sessions"], ["keys", "list"]] {
                let read = try await ctl(arguments, key: readOnly)
                #expect(read.status == 0, "\(arguments): \(read.error)")
            }
            let watch = try await ChildProcess.start("gatewayctl", ["watch"], environment: environment.merging(["GATEWAYCTL_SECRET_KEY": readOnly]) { $1 })
            #expect(await watch.waitForLine { $0.contains(reader) } != nil, "watch printed: \(watch.output) \(watch.standardError)")
            watch.terminate()

            // Every change is refused, naming the permission.
            let changes: [([String], String)] = [
                (["locations", "create", "Back"], "locations:write"),
                (["readers", "delete", reader], "readers:write"),
                (["release", reader], "ownership:write"),
                (["tokens", "create"], "tokens:write"),
                (["keys", "create", "more", "--read-only"], "keys:write"),
            ]
            for (arguments, permission) in changes {
                let refused = try await ctl(arguments, key: readOnly)
                #expect(refused.status == 77, "\(arguments): \(refused.status.map(String.init) ?? "running") \(refused.output) \(refused.error)")
                #expect(refused.error.contains(permission), "\(arguments): \(refused.error)")
            }

            // Roll the account key with a one-second overlap: the old secret works, then is refused as rolled.
            let keys = try await ctl(["--json", "keys", "list"])
            let listed = try #require(try JSONSerialization.jsonObject(with: Data(keys.output.joined().utf8)) as? [[String: Any]])
            let accountKey = try #require(listed.first { $0["name"] as? String == "account key" }?["id"] as? String)
            let rolled = try await ctl(["--json", "keys", "roll", accountKey, "--overlap", "1s"])
            #expect(rolled.status == 0, "\(rolled.error)")
            let newSecret = try #require((try JSONSerialization.jsonObject(with: Data(rolled.output.joined().utf8)) as? [String: Any])?["secret"] as? String)
            var refusedOld: (status: Int32?, output: [String], error: String)?
            _ = await eventually(timeout: .seconds(30)) {
                guard let attempt = try? await ctl(["owners"]) else { return false }
                refusedOld = attempt
                return attempt.status != 0
            }
            #expect(refusedOld?.status == 77)
            #expect(refusedOld?.error.contains("was rolled") == true, "\(refusedOld?.error ?? "")")
            #expect(try await ctl(["owners"], key: newSecret).status == 0)

            // Revoked: refused at once.
            let readOnlyID = try #require(document["key"] as? [String: Any])["id"] as? String
            #expect(try await ctl(["keys", "revoke", try #require(readOnlyID)], key: newSecret).status == 0)
            let revoked = try await ctl(["readers", "list"], key: readOnly)
            #expect(revoked.status == 77)
            #expect(revoked.error.contains("revoked"), "\(revoked.error)")
        } catch {
            gateway.discard()
            throw error
        }
        _ = await gateway.stop()
    }
}
