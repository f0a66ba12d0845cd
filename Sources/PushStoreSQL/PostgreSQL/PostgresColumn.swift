import Foundation
import PostgresDriver
import PushStore
