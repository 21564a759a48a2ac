// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @notice The Multicall3 entry point the payment collector uses for ERC-6492 preparation.
interface IMulticall3TryAggregate {
    struct Call {
        address target;
        bytes callData;
    }

    struct Result {
        bool success;
        bytes returnData;
    }

    function tryAggregate(bool requireSuccess, Call[] calldata calls) external payable returns (Result[] memory);
}
