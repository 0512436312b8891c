/// A failure of the cluster fixture itself (a process that did not start, a wait that ran out).
struct ClusterError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
