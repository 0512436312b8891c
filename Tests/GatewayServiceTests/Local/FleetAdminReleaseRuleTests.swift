import Foundation
import GatewayDomain
@testable import GatewayService
import GatewayWire
import Testing

/// Forced releases and deletions on the fleet admin surface: fenced by the generation the
/// admin read, told to the lane that lost the reader, and written to the reader's history.
@Suite("Local rules: admin release")
struct FleetAdminReleaseRuleTests {
    @Test func aReleaseNamesTheLaneItTookTheReaderFromAndTheLaneHearsOfIt() async throws {
        let local = LocalFleetAdmin()
        let location = try await local.createLocation()
        let token = try await local.laneOwning("tmr_1", at: location, device: "pos-7")
        var request = ReaderGatewayV1.ForceReleaseReaderRequest()
        request.readerID = "tmr_1"
        let response = try await local.call(local.admin.forceReleaseReader, request)
        #expect(response.releasedOwner?.posDeviceID == "pos-7")
        #expect(response.releasedOwner?.laneLabel == "pos-7")
        #expect(response.ownership?.owner == nil)
        #expect(response.ownership?.generation == 2)
        #expect(local.store.ownership(of: "tmr_1")?.owner == nil)
        // The lane holds no reader any more: its next command is refused as not connected.
        #expect(local.lanes.registry.session(token: token)?.reader == nil)
        var collect = ReaderGatewayV1.CollectPaymentMethodRequest()
        collect.sessionToken = token
        #expect(await failure { try await local.lanes.sdk.commands.collectPaymentMethod(collect, ticket: nil, local.lanes.context()) }?.reason == .notConnectedToReader)
        #expect(local.lanes.fleet.readers.last == "tmr_1")
    }

    @Test func aReleaseFencedByAGenerationTheReaderMovedPastChangesNothing() async throws {
        let local = LocalFleetAdmin()
        let location = try await local.createLocation()
        _ = try await local.laneOwning("tmr_1", at: location)
        var request = ReaderGatewayV1.ForceReleaseReaderRequest()
        request.readerID = "tmr_1"
        request.expectedGeneration = 0
        let error = await failure { try await local.call(local.admin.forceReleaseReader, request) }
        #expect(error?.reason == .ownershipChanged)
        #expect(local.store.ownership(of: "tmr_1")?.owner != nil)
        request.expectedGeneration = 1
        #expect(try await local.call(local.admin.forceReleaseReader, request).releasedOwner != nil)
    }

    @Test func releasingAReaderNobodyOwnsReleasesNoOne() async throws {
        let local = LocalFleetAdmin()
        let location = try await local.createLocation()
        local.store.addReader("tmr_1", account: LocalSDK.account, location: location)
        var request = ReaderGatewayV1.ForceReleaseReaderRequest()
        request.readerID = "tmr_1"
        let response = try await local.call(local.admin.forceReleaseReader, request)
        #expect(response.releasedOwner == nil)
        #expect(response.ownership?.generation == 0)
    }

    @Test func theHistoryNamesEachChangeNewestFirstWithTheLanesPosDevices() async throws {
        let local = LocalFleetAdmin()
        let location = try await local.createLocation()
        _ = try await local.laneOwning("tmr_1", at: location, device: "pos-7")
        var release = ReaderGatewayV1.ForceReleaseReaderRequest()
        release.readerID = "tmr_1"
        _ = try await local.call(local.admin.forceReleaseReader, release)
        var request = ReaderGatewayV1.ListOwnershipHistoryRequest()
        request.readerID = "tmr_1"
        let history = try await local.call(local.admin.listOwnershipHistory, request).entries
        #expect(history.map(\.reason) == [.adminReleased, .connected])
        #expect(history.map(\.generation) == [2, 1])
        #expect(history[0].previousOwner?.posDeviceID == "pos-7")
        #expect(history[1].session?.posDeviceID == "pos-7")
    }

    @Test func aMobileLinkEndingIsMergedIntoTheHistoryAtItsGeneration() async throws {
        let local = LocalFleetAdmin()
        let location = try await local.createLocation()
        _ = try await local.laneOwning("tmr_1", at: location)
        local.lanes.clock.advance(by: .seconds(5))
        try await local.store.recordLinkEnding(reader: "tmr_1", reason: .disconnectRequested, reconnecting: true, at: Date(timeIntervalSince1970: Double(local.lanes.clock.nowUnixMs) / 1000))
        local.lanes.clock.advance(by: .seconds(5))
        var release = ReaderGatewayV1.ForceReleaseReaderRequest()
        release.readerID = "tmr_1"
        _ = try await local.call(local.admin.forceReleaseReader, release)
        var request = ReaderGatewayV1.ListOwnershipHistoryRequest()
        request.readerID = "tmr_1"
        let history = try await local.call(local.admin.listOwnershipHistory, request).entries
        #expect(history.map(\.reason) == [.adminReleased, .mobileLinkEnded, .connected])
        #expect(history[1].generation == 1)
        #expect(history[1].linkReconnecting)
        request.limit = 2
        #expect(try await local.call(local.admin.listOwnershipHistory, request).entries.map(\.reason) == [.adminReleased, .mobileLinkEnded])
    }

    @Test func deletingAReaderReleasesItFromItsLaneAndForgetsIt() async throws {
        let local = LocalFleetAdmin()
        let location = try await local.createLocation()
        _ = try await local.laneOwning("tmr_1", at: location)
        var request = ReaderGatewayV1.DeleteReaderRequest()
        request.readerID = "tmr_1"
        _ = try await local.call(local.admin.deleteReader, request)
        #expect(try await local.store.reader("tmr_1", account: LocalSDK.account) == nil)
        #expect(local.lanes.registry.session(token: try #require(local.lanes.registry.sessions(of: LocalSDK.account, location: nil).first?.token))?.reader == nil)
        var get = ReaderGatewayV1.GetReaderRequest()
        get.readerID = "tmr_1"
        #expect(await failure { try await local.call(local.admin.getReader, get) }?.reason == .readerNotFound)
    }
}
