import Foundation
import GatewayRepositories
@testable import GatewayService
import GatewayWire
import Testing

/// Every `FleetAdmin` method, as the generated service descriptor lists it, against keys made
/// for it over the wire (real PostgreSQL, real TLS): a key lacking the method's permission is
/// refused with PERMISSION_DENIED naming it, a key holding just that permission is not, and a
/// read-only key reads everything and changes nothing. A method added to `admin.proto`
/// without a row in the permission table fails here (and does not compile).
@Suite("Secret key permissions, method by method")
struct KeyPermissionTableTests {
    static let readOnly = KeyPermissions(Dictionary(uniqueKeysWithValues: KeyResource.allCases.map { ($0, .read) }))

    @Test func eachMethodRefusesAKeyWithoutItsPermissionNamingItAndServesOneWithIt() async throws {
        let harness = try await GatewayHarness.start()
        do {
            let admin = try await harness.admin()
            let readOnly = try await Self.createKey(admin, name: "read only", permissions: Self.readOnly)
            #expect(ReaderGatewayV1.FleetAdmin.methods.count == FleetAdminMethod.allCases.count)
            for descriptor in ReaderGatewayV1.FleetAdmin.methods {
                let method = try #require(FleetAdminMethod(path: descriptor.path), "\(descriptor.path) has no row in the permission table")
                let needed = method.requirement
                var lacking = KeyPermissions.all
                lacking[needed.resource] = needed.level == .write ? .read : .none
                let without = try await Self.createKey(admin, name: "without \(needed.name)", permissions: lacking)
                let refused = try await Self.firstAnswer(harness, path: descriptor.path, key: without)
                #expect(refused?.reason == .permissionDenied, "\(method.name) with a key lacking \(needed.name): \(String(describing: refused))")
                #expect(refused?.message.contains(needed.name) == true, "\(method.name): \(refused?.message ?? "served")")

                var only = KeyPermissions()
                only[needed.resource] = needed.level
                let with = try await Self.createKey(admin, name: "only \(needed.name)", permissions: only)
                let served = try await Self.firstAnswer(harness, path: descriptor.path, key: with)
                #expect(served?.reason != .permissionDenied, "\(method.name) with a key holding \(needed.name): \(served?.message ?? "")")
                #expect(served?.reason != .secretKeyInvalid)

                // A read-only key: every read served, every change refused.
                let asReader = try await Self.firstAnswer(harness, path: descriptor.path, key: readOnly)
                if needed.level == .write {
                    #expect(asReader?.reason == .permissionDenied, "\(method.name) changes something; a read-only key must be refused")
                } else {
                    #expect(asReader?.reason != .permissionDenied, "\(method.name) only reads; a read-only key must be served")
                }
            }
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }

    @Test func aLocationLimitedKeyMayNotCallWhatActsOnEveryLocation() async throws {
        let harness = try await GatewayHarness.start()
        do {
            let admin = try await harness.admin()
            let location = try await admin.createLocation("One")
            let limited = try await Self.createKey(admin, name: "one store", permissions: .all, locations: [location])
            for method in FleetAdminMethod.allCases where method.requirement.accountWide {
                let refused = try await Self.firstAnswer(harness, path: method.path, key: limited)
                #expect(refused?.reason == .permissionDenied, "\(method.name)")
                #expect(refused?.message.contains("limited to \(location)") == true, "\(method.name): \(refused?.message ?? "served")")
            }
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }

    static func createKey(_ admin: TestAdmin, name: String, permissions: KeyPermissions, locations: [String] = []) async throws -> String {
        var request = ReaderGatewayV1.CreateApiKeyRequest()
        request.name = name
        request.permissions = FleetAdminService.permissionsMessage(permissions)
        request.locationIDs = locations
        return try await admin.call(ReaderGatewayV1.FleetAdmin.createApiKey, request).secret
    }

    /// Calls `path` with an empty request and `key`: the status the call ended with, or nil
    /// when it answered a message first (a stream is then cancelled).
    static func firstAnswer(_ harness: GatewayHarness, path: String, key: String) async throws -> ReaderGatewayV1.Status? {
        let channel = try await harness.channel()
        defer { channel.close() }
        let (id, events) = try channel.start(path, metadata: bearer(key))
        try? channel.send(ReaderGatewayV1.ListApiKeysRequest(), on: id)
        try? channel.halfClose(id)
        for await event in events {
            switch event {
            case .message:
                channel.cancel(id)
                return nil
            case .ended(let status):
                return status.code == .ok ? nil : status
            }
        }
        throw CallFailure(status: ReaderGatewayV1.Status(.connectionLost, "the connection closed before \(path) answered"))
    }
}
