/// A first-in, first-out queue with O(1) amortised push and pop.
struct Deque<Element> {
    private var items: [Element?] = []
    private var head = 0

    var count: Int { items.count - head }
    var isEmpty: Bool { count == 0 }
    /// The first element, left in place.
    var first: Element? { head < items.count ? items[head] : nil }

    mutating func append(_ element: Element) { items.append(element) }

    mutating func popFirst() -> Element? {
        guard head < items.count else { return nil }
        let element = items[head]
        items[head] = nil
        head += 1
        if head > 64 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return element
    }

    mutating func removeAll() -> [Element] {
        let rest = items[head...].compactMap { $0 }
        items.removeAll()
        head = 0
        return rest
    }

    /// Removes the first element matching `predicate`; O(n).
    mutating func remove(where predicate: (Element) -> Bool) -> Element? {
        for index in head..<items.count {
            if let element = items[index], predicate(element) {
                items.remove(at: index)
                return element
            }
        }
        return nil
    }
}
