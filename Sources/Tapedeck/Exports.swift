@_exported import TapedeckCore
